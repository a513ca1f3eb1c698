/**
 * The main job until the `queueport` CLI lands: the conformance suite (queue contract and crash
 * window) against the in-memory reference driver, printed for people (or as JSON with --json).
 *
 *   pnpm conformance:memory [--json] [--seed N] [--runs N] [--only id,id] [--path P]
 */
import { parseArgs } from 'node:util';
import {
  formatFailure,
  formatReport,
  formatResultLine,
  queueProperties,
  runConformance,
  virtualTimeHarness,
} from '@queueport/conformance';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import { crashWindowProperties } from '@queueport/webhook/conformance';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    seed: { type: 'string' },
    runs: { type: 'string' },
    only: { type: 'string' },
    path: { type: 'string' },
  },
});

const harness = virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock }));
const report = await runConformance(harness, {
  // The queue contract, then the crash window over a throwaway SQLite ledger.
  properties: [...queueProperties, ...crashWindowProperties(temporarySqliteLedger)],
  ...(values.seed ? { seed: Number(values.seed) } : {}),
  ...(values.runs ? { numRuns: Number(values.runs) } : {}),
  ...(values.only ? { only: values.only.split(',') } : {}),
  ...(values.path ? { path: values.path } : {}),
  onProgress: (event) => {
    if (values.json) return;
    if (event.kind === 'start')
      console.error(`running ${event.total} properties against ${event.harness} (seed ${event.seed})`);
    if (event.kind === 'property-end') {
      console.error(`[${event.index + 1}/${event.total}] ${formatResultLine(event.result)}`);
      if (event.result.status === 'failed') console.error(formatFailure(event.result, 'memory'));
    }
  },
});

console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
process.exitCode = report.summary.failed > 0 ? 1 : 0;
