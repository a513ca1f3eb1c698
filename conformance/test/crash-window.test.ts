import { crashWindowProperties, temporarySqliteLedger, virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver } from '@queueport/memory';

describeConformance(
  'memory + SQLite ledger + reference receiver',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
  { properties: crashWindowProperties(temporarySqliteLedger) },
);
