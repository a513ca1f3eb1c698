import { adapterHarness, virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { dropMemoryConnection, MemoryDriver, memoryAdapter } from '@queueport/memory';

// Opened by URL through the adapter definition, as the CLI opens any provider: scratch queues
// from its admin surface, dead letters inspected there, a deleted queue for `missing-queue`,
// and a simulated connection drop for `connection-drop`.
describeConformance(
  'memory://',
  adapterHarness(memoryAdapter, 'memory://', { dropConnection: dropMemoryConnection }),
);

// The same suite through the portable delay bridge: the driver holds at most SQS's 900 s and
// refuses anything longer, so every longer delay is the bridge's work.
describeConformance(
  'memory://, delays bridged past 900 s',
  adapterHarness(memoryAdapter, 'memory://?nativeMaxDelaySeconds=900', {
    dropConnection: dropMemoryConnection,
  }),
);

// A provider that redrives on its own after three receives, as an SQS redrive policy does.
describeConformance(
  'memory://, redrive after 3 receives',
  adapterHarness(memoryAdapter, 'memory://', { createQueue: { redriveAfterReceives: 3 } }),
);

// The driver constructed directly, without an admin surface: what needs one is skipped.
describeConformance(
  'MemoryDriver',
  virtualTimeHarness(
    'memory',
    (clock) => {
      const driver = new MemoryDriver({ clock });
      return { driver, dropConnection: async () => driver.dropConnection() };
    },
    {
      dropsConnection: true,
      createMissingDriver: (clock) => {
        const driver = new MemoryDriver({ clock });
        driver.delete();
        return driver;
      },
    },
  ),
);
