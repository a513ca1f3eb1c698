import { adapterHarness, virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver, memoryAdapter } from '@queueport/memory';

describeConformance(
  'memory',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
);

// The same suite through the portable delay bridge: the driver holds at most SQS's 900 s and
// refuses anything longer, so every longer delay is the bridge's work.
describeConformance(
  'memory, delays bridged past 900 s',
  virtualTimeHarness('memory-bridged', (clock) => new MemoryDriver({ clock, nativeMaxDelaySeconds: 900 })),
);

// Opened by URL through the adapter definition, as the CLI opens any provider.
describeConformance('memory:// by URL', adapterHarness(memoryAdapter, 'memory://?nativeMaxDelaySeconds=900'));
