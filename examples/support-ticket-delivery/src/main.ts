/**
 * pnpm --filter @queueport/example-support-ticket-delivery start [--json]
 */
import { runTicketDeliveryDemo, type TicketDeliverySummary } from './ticket-delivery-demo';

const json = process.argv.includes('--json');
const summary = await runTicketDeliveryDemo(json ? undefined : (line) => console.error(line));

/** What the example promises; the exit code says whether this run kept it. */
function keptItsPromise(s: TicketDeliverySummary): boolean {
  const intact = s.tickets.filter((t) => !t.tampered);
  const tampered = s.tickets.filter((t) => t.tampered);
  return (
    s.inlinePublish.refused &&
    s.tickets.every(
      (t) => t.envelopeBytes <= s.portableLimitBytes && t.transcriptBytes > s.portableLimitBytes,
    ) &&
    intact.every((t) => t.effects === 1 && t.archived === 1 && t.ledgerState === 'delivered') &&
    tampered.every(
      (t) =>
        t.effects === 0 &&
        t.archived === 0 &&
        t.refusal?.problem === 'digest-mismatch' &&
        t.ledgerState === 'failed',
    )
  );
}

if (json) {
  console.log(JSON.stringify(summary, null, 2));
} else {
  const kb = (bytes: number) =>
    bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `\nportable message limit ${kb(summary.portableLimitBytes)}; ticket inline: ${
      summary.inlinePublish.refused ? `refused (${summary.inlinePublish.code})` : 'accepted'
    }\n`,
  );
  console.log('ticket        transcript (blob)   envelope   effects   ledger      helpdesk');
  for (const t of summary.tickets) {
    const helpdesk = t.refusal
      ? `refused ${t.refusal.status}: ${t.refusal.problem}`
      : `filed, sha256 ${t.sha256.slice(0, 12)}… verified`;
    console.log(
      `${t.ticketId.padEnd(13)} ${kb(t.transcriptBytes).padStart(17)}   ${`${t.envelopeBytes} B`.padStart(8)}   ${String(t.effects).padStart(7)}   ${String(t.ledgerState).padEnd(10)}  ${helpdesk}`,
    );
  }
}
process.exitCode = keptItsPromise(summary) ? 0 : 1;
