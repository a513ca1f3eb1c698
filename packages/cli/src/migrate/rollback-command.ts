import type { CommandContext } from '../command-context';
import { requireConfig } from '../config/require-config';
import { ReportBuilder } from '../report/report-builder';
import type { CommandReport } from '../report/report-types';
import { listSome } from './list-some';
import { type RollbackResult, runRollbackWith } from './rollback';

/** `queueport migrate --to B --rollback`: B's configured queue drained, the ledger only read. */
export async function runRollbackCommand(
  context: CommandContext,
  to: string,
  drainMs: number,
): Promise<CommandReport> {
  const report = new ReportBuilder('migrate', context.io);
  const loaded = await requireConfig(context, { providers: [{ name: to, flag: '--to' }], ledger: true });
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    const provider = await context.openProvider(to);
    cleanup.push(() => provider.close());
    const ledger = await context.openLedger();
    cleanup.push(() => ledger.close());
    // The configured URL, unredacted: the admin names queues by it.
    const url = loaded.config.providers[to]?.url;
    const admin = provider.admin;
    const result = await runRollbackWith(
      {
        to: {
          name: provider.name,
          queue: provider.queue,
          ...(admin && url ? { depth: async () => (await admin.stats(url)).depth } : {}),
        },
        ledger,
        drainMs,
        progress: (line) => context.progress(line),
      },
      { now: () => context.io.now() },
    );
    for (const check of result.checks) report.add(check);
    return report.build({ summary: rollbackSummary(result), notes: rollbackNotes(result) });
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }
}

function rollbackSummary(result: RollbackResult): Record<string, number | string> {
  return {
    to: result.name,
    drained: result.drained,
    'drained.events': new Set(result.eventIds).size,
    'delivered elsewhere': result.deliveredElsewhere,
    undelivered: result.undelivered.length,
    'dead-lettered': result.invalid.deadLettered,
    remaining: result.remaining ?? 'unknown',
  };
}

function rollbackNotes(result: RollbackResult): string[] {
  const notes = [
    'Stopping the application’s own publication to the provider is its switch; this drained what the provider held. The ledger was only read.',
  ];
  if (result.undelivered.length > 0) {
    notes.push(
      `Drained events the ledger has not seen delivered: ${listSome(result.undelivered)}. The provider kept must carry them; those with a pending ledger row are found by \`queueport reconcile\`.`,
    );
  }
  const { deadLettered, leftInQueue, firstReason } = result.invalid;
  const why = firstReason ? ` (the first: ${firstReason})` : '';
  if (deadLettered > 0) {
    notes.push(
      `${deadLettered} message(s) on ${result.name} were not queueport envelopes${why} and were moved to its dead letters, not drained: see them with \`queueport dlq list --provider ${result.name}\`; they belong to whoever wrote them there, so do not redrive them into a queue a delivery worker reads.`,
    );
  }
  if (leftInQueue > 0) {
    notes.push(
      `${leftInQueue} message(s) on ${result.name} were not queueport envelopes${why}, and ${result.name} cannot dead-letter them: they stay in the queue and count in "remaining"; remove them with the provider's own tools.`,
    );
  }
  return notes;
}
