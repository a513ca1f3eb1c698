import { adapterHarness, virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver, memoryAdapter } from '@queueport/memory';

// Opened by URL through the adapter definition, as the CLI opens any provider: scratch queues
// from its admin surface, dead letters inspected there, a deleted queue for `missing-queue`.
describeConformance('memory://', adapterHarness(memoryAdapter, 'memory://'));

// The same suite through the portable delay bridge: the driver holds at most SQS's 900 s and
// refuses anything longer, so every longer delay is the bridge's work.
describeConformance(
  'memory://, delays bridged past 900 s',
  adapterHarness(memoryAdapter, 'memory://?nativeMaxDelaySeconds=900'),
);

// A provider that redrives on its own after three receives, as an SQS redrive policy does.
describeConformance(
  'memory://, redrive after 3 receives',
  adapterHarness(memoryAdapter, 'memory://?maxReceives=3'),
);

// The driver constructed directly, without an admin surface: what needs one is skipped.
describeConformance(
  'MemoryDriver',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock }), {
    createMissingDriver: (clock) => {
      const driver = new MemoryDriver({ clock });
      driver.delete();
      return driver;
    },
  }),
);
