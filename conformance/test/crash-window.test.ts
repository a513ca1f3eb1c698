import { crashWindowProperties, virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { MemoryDriver } from '@queueport/memory';
import { sqliteLedger } from './sqlite-ledger-factory';

describeConformance(
  'memory + SQLite ledger + reference receiver',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
  { properties: crashWindowProperties(sqliteLedger) },
);
