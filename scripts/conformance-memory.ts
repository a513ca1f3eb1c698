/**
 * The main job until the `queueport` CLI lands: the conformance suite (queue contract and crash
 * window) against the in-memory reference driver, opened by URL through its adapter definition,
 * printed for people (or as JSON with --json).
 *
 *   pnpm conformance:memory [--url memory://?nativeMaxDelaySeconds=900] [--json] [--seed N] [--runs N] [--only id,id] [--path P]
 */
import { parseArgs } from 'node:util';
import {
  adapterHarness,
  formatFailure,
  formatReport,
  formatResultLine,
  queueProperties,
  runConformance,
} from '@queueport/conformance';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { memoryAdapter } from '@queueport/memory';
import { crashWindowProperties } from '@queueport/webhook/conformance';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'memory://' },
    json: { type: 'boolean', default: false },
    seed: { type: 'string' },
    runs: { type: 'string' },
    only: { type: 'string' },
    path: { type: 'string' },
  },
});

const harness = adapterHarness(memoryAdapter, values.url, { name: values.url });
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
      if (event.result.status === 'failed') console.error(formatFailure(event.result, harness.name));
    }
  },
});

console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
process.exitCode = report.summary.failed > 0 ? 1 : 0;
