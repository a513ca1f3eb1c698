import { MAX_SCAN_LIMIT } from '@queueport/ledger';
import { type ReconcileResult, runReconcile } from '@queueport/webhook/reconcile';
import { intOption, parseCommandArgs, requireOption } from '../args';
import type { Command, CommandContext } from '../command-context';
import { requireConfig } from '../config/require-config';
import { UsageError } from '../errors';
import { listSome } from '../migrate/list-some';
import { ReportBuilder } from '../report/report-builder';
import type { CommandReport } from '../report/report-types';
import { loadPayloadLoader } from './load-payload-loader';
import { reconcileChecks } from './reconcile-checks';

const USAGE = `usage: queueport reconcile --provider X [--older-than-seconds S] [--batch N] [--budget-ms B]
                           [--enqueue-scan [--scan-provider Y]]

Finds ledger events with no terminal state last updated more than S seconds ago (held by no live
lease, with no retry still scheduled), loads each payload through the configured payloadLoader
(the ledger never stores payloads) and republishes them to X's queue in units of N. The run
never takes longer than B: the clock is read before every unit, and what is not reached is
reported as still pending, for the next run. Ambiguous rows (an attempt ended with no recorded
outcome; the receiver may have acted twice) are listed for a person.

  --provider X            where the events are republished (their delivery workers' queue)
  --older-than-seconds S  default 900
  --batch N               events per unit, default 100 (at most ${MAX_SCAN_LIMIT})
  --budget-ms B           default 840000 (a 900 s-capped cron run, with a minute to spare)
  --enqueue-scan          hand the scan to workers instead: one queueport.reconcile.republish
                          message per unit of ids, and a queueport.reconcile.scan continuation
                          if the scan itself ran out of budget; workers pass each to
                          handleReconcileMessage from @queueport/webhook/reconcile
                          (see ReconcileWork there for the shape)
  --scan-provider Y       where those messages go; default X. Workers that consume it must
                          dispatch on the type: a DeliveryWorker would take them for webhooks

Exit status: 0 every check passed, 1 a check failed (the report says which and why), 2 a usage
or configuration error.
`;

const FLAGS = {
  provider: { type: 'string' },
  'older-than-seconds': { type: 'string' },
  batch: { type: 'string' },
  'budget-ms': { type: 'string' },
  'enqueue-scan': { type: 'boolean' },
  'scan-provider': { type: 'string' },
} as const;

export const reconcileCommand: Command = {
  name: 'reconcile',
  summary: 'Republishes stuck ledger events within a time budget, and lists the ambiguous ones.',
  help: USAGE,
  async run(argv, context) {
    // The budget counts from here: loading the configuration and opening the provider are part of
    // the run. On performance.now(), the clock runReconcile keeps its budget on.
    const startedAt = performance.now();
    const { values } = parseCommandArgs(argv, FLAGS, USAGE);
    const provider = requireOption(values.provider, '--provider', USAGE);
    const olderThanSeconds = intOption(values['older-than-seconds'], '--older-than-seconds', USAGE, 0) ?? 900;
    const batch = intOption(values.batch, '--batch', USAGE, 1) ?? 100;
    if (batch > MAX_SCAN_LIMIT) throw new UsageError(`--batch takes at most ${MAX_SCAN_LIMIT}\n\n${USAGE}`);
    const budgetMs = intOption(values['budget-ms'], '--budget-ms', USAGE, 1) ?? 840_000;
    const enqueueScan = values['enqueue-scan'] === true;
    if (values['scan-provider'] !== undefined && !enqueueScan) {
      throw new UsageError(`--scan-provider goes with --enqueue-scan\n\n${USAGE}`);
    }
    const scanProvider = values['scan-provider'] ?? provider;
    return reconcile(context, {
      provider,
      scanProvider,
      olderThanSeconds,
      batch,
      budgetMs,
      enqueueScan,
      startedAt,
    });
  },
};

async function reconcile(
  context: CommandContext,
  flags: {
    provider: string;
    scanProvider: string;
    olderThanSeconds: number;
    batch: number;
    budgetMs: number;
    enqueueScan: boolean;
    startedAt: number;
  },
): Promise<CommandReport> {
  const report = new ReportBuilder('reconcile', context.io);
  const loaded = await requireConfig(context, {
    providers: [
      { name: flags.provider, flag: '--provider' },
      ...(flags.scanProvider !== flags.provider
        ? [{ name: flags.scanProvider, flag: '--scan-provider' }]
        : []),
    ],
    ledger: true,
  });
  // Refused before anything is opened: without it nothing could be republished.
  const loadPayload = flags.enqueueScan ? undefined : await loadPayloadLoader(loaded, context.io.cwd);
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    const ledger = await context.openLedger();
    cleanup.push(() => ledger.close());
    const target = await context.openProvider(flags.provider);
    cleanup.push(() => target.close());
    let workQueue = target.queue;
    if (flags.enqueueScan && flags.scanProvider !== flags.provider) {
      const scan = await context.openProvider(flags.scanProvider);
      cleanup.push(() => scan.close());
      workQueue = scan.queue;
    }
    const result = await runReconcile({
      ledger,
      queue: target.queue,
      ...(loadPayload ? { loadPayload } : {}),
      ...(flags.enqueueScan ? { enqueueScan: workQueue } : {}),
      olderThanSeconds: flags.olderThanSeconds,
      batch: flags.batch,
      budgetMs: flags.budgetMs,
      startedAt: flags.startedAt,
      progress: (line) => context.progress(line),
    });
    for (const check of reconcileChecks(result, target.name)) report.add(check);
    return report.build({
      summary: reconcileSummary(result, flags),
      notes: reconcileNotes(result, flags),
      rows: result.ambiguous.map((record) => ({
        ambiguous: record.eventId,
        state: record.state,
        attempts: record.attempts,
        'last outcome': record.lastOutcome,
        updated: new Date(record.updatedAt).toISOString(),
      })),
    });
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }
}

function reconcileSummary(
  result: ReconcileResult,
  flags: { provider: string; olderThanSeconds: number },
): Record<string, number | string> {
  return {
    provider: flags.provider,
    'older than (s)': flags.olderThanSeconds,
    mode: result.mode,
    eligible: result.eligible.length,
    republished: result.republished.length,
    absorbed: result.absorbed.length,
    ...(result.mode === 'enqueue' ? { enqueued: result.enqueued.length, units: result.units } : {}),
    pending: result.pending.length,
    ambiguous: result.ambiguous.length,
    missing: result.missing.length,
    mismatched: result.mismatched.length,
    failed: result.failed.length,
    leased: result.leased,
    'retry scheduled': result.scheduled,
    scan: result.scanComplete ? 'complete' : 'partial',
    'budget (ms)': result.budgetMs,
  };
}

function reconcileNotes(result: ReconcileResult, flags: { scanProvider: string }): string[] {
  const notes: string[] = [];
  if (result.pending.length > 0 || !result.scanComplete) {
    notes.push(
      `The budget ran out with ${result.pending.length} stuck events not reached${result.scanComplete ? '' : ' and the scan unfinished'}: the next run carries on, or --enqueue-scan hands the scan to workers.`,
    );
  }
  if (result.mode === 'enqueue' && (result.units > 0 || result.continuation)) {
    notes.push(
      `${result.units} republish units${result.continuation ? ' and a scan continuation' : ''} are on ${flags.scanProvider}'s queue, for workers that pass them to handleReconcileMessage.`,
    );
  }
  if (result.mismatched.length > 0) {
    notes.push(
      `The loader's payload differs from what the ledger recorded for ${listSome(result.mismatched)}: the same id with another payload is never a retry; a person must decide.`,
    );
  }
  if (result.ambiguous.length > 0) {
    notes.push(
      `${result.ambiguous.length}${result.ambiguousComplete ? '' : '+'} ambiguous rows (below): an attempt ended with no recorded outcome, so a receiver that ignores Idempotency-Key may have acted twice. Check them against the receiver's records.`,
    );
  }
  return notes;
}
