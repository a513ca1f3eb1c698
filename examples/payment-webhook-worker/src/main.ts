/**
 * pnpm --filter @queueport/example-payment-webhook-worker start [--json]
 */
import { runPaymentWorkerDemo } from './payment-worker-demo';

const json = process.argv.includes('--json');
const summary = await runPaymentWorkerDemo(json ? undefined : (line) => console.error(line));
if (json) {
  console.log(JSON.stringify(summary, null, 2));
} else {
  console.log('\nevent                        effects at merchant   ledger');
  for (const e of summary.events) {
    console.log(
      `${e.eventId.padEnd(28)} ${String(e.effects).padStart(19)}   ${e.ledgerState} after ${e.attempts} attempt(s)`,
    );
  }
}
process.exitCode = summary.events.every((e) => e.effects === 1 && e.ledgerState === 'delivered') ? 0 : 1;
