import { virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver } from '@queueport/memory';

describeConformance(
  'memory',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
);
