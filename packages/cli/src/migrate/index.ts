import { randomUUID } from 'node:crypto';
import { Queue } from '@queueport/core';
import { createWebhookSender, type Destination, type WebhookSender } from '@queueport/webhook';
import { intOption, parseCommandArgs, requireOption } from '../args';
import type { Command, CommandContext, OpenedProvider } from '../command-context';
import { configEnv, type Env } from '../config/config-env';
import type { LoadedConfig } from '../config/config-types';
import { requireConfig } from '../config/require-config';
import { isShowableName } from '../config/secret-names';
import { ConfigError, UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import type { CommandReport } from '../report/report-types';
import {
  type CanaryPath,
  type CanaryPathKey,
  type DualPublishResult,
  type RollbackResult,
  runDualPublish,
  runRollback,
} from './dual-publish';
import { listSome } from './list-some';

export {
  type CanaryPath,
  type CanaryPathKey,
  type DualPublishOptions,
  type DualPublishResult,
  type EffectCounter,
  type PathCounts,
  type RollbackOptions,
  type RollbackResult,
  runDualPublish,
  runRollback,
} from './dual-publish';

const USAGE = `usage: queueport migrate --from A --to B [--events N] [--window-ms M] [--drain-ms D]
       queueport migrate --to B --rollback [--drain-ms D]

The dual-publish canary of a provider change. N synthetic events (unique ids) are published to
both providers within the window, on scratch queues the canary creates and deletes; a delivery
worker consumes each, both sharing the configured ledger and one webhook sender to the configured
receiver. It fails if any event took effect twice, or if an event was lost (never delivered, or
accepted by a provider that never handed it back).

  --from A        the provider in use (its name in the configuration)
  --to B          the provider coming in
  --events N      canary events, default 20
  --window-ms M   publication is spread over this window, default 5000
  --drain-ms D    how long both may take to drain afterwards, default 30000
  --rollback      stop publishing to B and drain B's configured queue: every message is acked
                  without a claim or a send, so the ledger is left exactly as it was; the report
                  says which drained events the ledger has not seen delivered (A must carry them)

Effects are counted by the receiver when it is the embedded reference receiver, else from the
ledger and the receiver's answers (its Idempotency-Key is the event id).

Exit status: 0 every check passed, 1 a check failed (the report says which and why), 2 a usage
or configuration error.
`;

const FLAGS = {
  from: { type: 'string' },
  to: { type: 'string' },
  events: { type: 'string' },
  'window-ms': { type: 'string' },
  'drain-ms': { type: 'string' },
  rollback: { type: 'boolean' },
} as const;

/** Canary sends wait at most this long for the receiver: short, so the ledger lease is short too. */
const REQUEST_TIMEOUT_MS = 10_000;

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'The dual-publish canary of a provider change: both providers, one ledger, one effect each.',
  help: USAGE,
  async run(argv, context) {
    const { values } = parseCommandArgs(argv, FLAGS, USAGE);
    const drainMs = intOption(values['drain-ms'], '--drain-ms', USAGE, 0) ?? 30_000;
    const to = requireOption(values.to, '--to', USAGE);
    if (values.rollback) {
      if (values.events !== undefined || values['window-ms'] !== undefined) {
        throw new UsageError(
          `--rollback publishes nothing: --events and --window-ms do not apply\n\n${USAGE}`,
        );
      }
      return rollback(context, to, drainMs);
    }
    const from = requireOption(values.from, '--from', USAGE);
    if (from === to)
      throw new UsageError(
        `--from and --to name the same provider${isShowableName(from) ? ` (${from})` : ''}: a migration needs two\n\n${USAGE}`,
      );
    const events = intOption(values.events, '--events', USAGE, 1) ?? 20;
    if (events > 10_000) throw new UsageError(`--events takes at most 10000\n\n${USAGE}`);
    const windowMs = intOption(values['window-ms'], '--window-ms', USAGE, 0) ?? 5_000;
    return canary(context, { from, to, events, windowMs, drainMs });
  },
};

async function canary(
  context: CommandContext,
  flags: { from: string; to: string; events: number; windowMs: number; drainMs: number },
): Promise<CommandReport> {
  const report = new ReportBuilder('migrate', context.io);
  const loaded = await requireConfig(context, {
    providers: [
      { name: flags.from, flag: '--from' },
      { name: flags.to, flag: '--to' },
    ],
    ledger: true,
    receiver: 'migrate delivers its canary events to a receiver',
  });
  const env = configEnv(context.io, loaded);
  const { sender, destination } = canarySender(loaded, env);
  const runId = randomUUID().slice(0, 8);
  const cleanup: (() => Promise<unknown>)[] = [() => sender.close()];
  try {
    const fromProvider = await context.openProvider(flags.from);
    cleanup.push(() => fromProvider.close());
    const toProvider = await context.openProvider(flags.to);
    cleanup.push(() => toProvider.close());
    const ledger = await context.openLedger();
    cleanup.push(() => ledger.close());
    const fromPath = await scratchPath(fromProvider, 'from', runId, env, loaded);
    cleanup.push(fromPath.dispose);
    const toPath = await scratchPath(toProvider, 'to', runId, env, loaded);
    cleanup.push(toPath.dispose);

    const result = await runDualPublish({
      from: fromPath.path,
      to: toPath.path,
      ledger,
      sender,
      destination,
      events: flags.events,
      windowMs: flags.windowMs,
      drainMs: flags.drainMs,
      ...(loaded.referenceReceiver ? { effects: loaded.referenceReceiver } : {}),
      runId,
      now: () => context.io.now(),
      progress: (line) => context.progress(line),
    });
    for (const check of result.checks) report.add(check);
    return report.build({
      summary: canarySummary(result),
      notes: canaryNotes(result),
      rows: canaryRows(result),
    });
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }
}

function canarySender(loaded: LoadedConfig, env: Env): { sender: WebhookSender; destination: Destination } {
  const receiver = loaded.config.receiver;
  if (!receiver) {
    throw new ConfigError(
      'migrate delivers its canary events to a receiver: add "receiver": { "url": "https://…" }',
      loaded.file,
      'receiver',
    );
  }
  let secret: string | undefined;
  if (receiver.secretEnv) {
    secret = env[receiver.secretEnv];
    if (!secret) {
      throw new ConfigError(
        `names the environment variable ${receiver.secretEnv}, which is not set`,
        loaded.file,
        'receiver.secretEnv',
      );
    }
  }
  const sender = createWebhookSender({
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    ...(receiver.allowInsecure ? { ssrf: { allowHttp: true, allowLoopback: true } } : {}),
  });
  return {
    sender,
    destination: { id: 'queueport-canary', url: receiver.url, ...(secret ? { secrets: [secret] } : {}) },
  };
}

/**
 * A scratch queue beside the configured one: the canary's worker consumes everything a queue
 * holds, and the application's own messages on the configured queue are not the canary's to take.
 */
async function scratchPath(
  provider: OpenedProvider,
  key: CanaryPathKey,
  runId: string,
  env: Env,
  loaded: LoadedConfig,
): Promise<{ path: CanaryPath; dispose: () => Promise<void> }> {
  const admin = provider.admin;
  if (!admin) {
    throw new ConfigError(
      `${provider.definition.packageName} has no admin surface, and migrate runs its canary on scratch queues it creates there`,
      loaded.file,
      `providers.${provider.name}`,
    );
  }
  const url = await admin.createQueue({ name: `queueport-canary-${runId}-${key}` });
  let queue: Queue;
  try {
    const driver = await provider.definition.open(new URL(url), { env });
    queue = new Queue(driver, { clock: provider.queue.clock, logger: provider.queue.logger });
  } catch (error) {
    await admin.deleteQueue(url).catch(() => undefined);
    throw error;
  }
  return {
    path: { name: provider.name, queue, depth: async () => (await admin.stats(url)).depth },
    dispose: async () => {
      await queue.close({ timeoutMs: 1_000 }).catch(() => undefined);
      await admin.deleteQueue(url).catch(() => undefined);
    },
  };
}

function canarySummary(result: DualPublishResult): Record<string, number | string> {
  const lost = new Set([...result.from.lost, ...result.to.lost, ...result.undelivered]);
  return {
    from: result.from.name,
    to: result.to.name,
    events: result.eventIds.length,
    'published.from': result.from.published,
    'published.to': result.to.published,
    'received.from': result.from.received,
    'received.to': result.to.received,
    delivered: result.delivered,
    suppressed: result.suppressedByLedger + result.suppressedByReceiver,
    'suppressed.ledger': result.suppressedByLedger,
    'suppressed.receiver': result.suppressedByReceiver,
    pending: result.pending.length,
    duplicates: result.duplicates.length,
    lost: lost.size,
    effects: result.effectSource,
  };
}

function canaryRows(result: DualPublishResult): NonNullable<CommandReport['rows']> {
  return [result.from, result.to].map((path) => ({
    path: path.path,
    provider: path.name,
    published: path.published,
    received: path.received,
    sent: path.results.delivered ?? 0,
    'already settled': path.results['already-settled'] ?? 0,
    'busy or retried': (path.results.busy ?? 0) + (path.results['retry-scheduled'] ?? 0),
    failed: (path.results.failed ?? 0) + (path.results.conflict ?? 0),
    lost: path.lost.length,
  }));
}

function canaryNotes(result: DualPublishResult): string[] {
  const notes: string[] = [];
  if (result.effectSource === 'ledger') {
    notes.push(
      'Effects were read from the ledger and the receiver’s answers: a receiver that ignores Idempotency-Key is not seen acting twice on a retried send.',
    );
  }
  if (result.pending.length > 0) {
    notes.push(
      `Still pending in the ledger after the drain: ${listSome(result.pending)}. A longer --drain-ms, or \`queueport reconcile\`, settles them.`,
    );
  }
  for (const path of [result.from, result.to]) {
    if (path.lost.length > 0) {
      notes.push(`${path.name} (${path.path}) accepted events it never handed back: ${listSome(path.lost)}.`);
    }
  }
  notes.push(
    `The canary's ledger rows (queueport-canary:${result.runId}:*) stay as delivered rows, pruned with the others.`,
  );
  return notes;
}

async function rollback(context: CommandContext, to: string, drainMs: number): Promise<CommandReport> {
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
    const result = await runRollback({
      to: {
        name: provider.name,
        queue: provider.queue,
        ...(admin && url ? { depth: async () => (await admin.stats(url)).depth } : {}),
      },
      ledger,
      drainMs,
      now: () => context.io.now(),
      progress: (line) => context.progress(line),
    });
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
