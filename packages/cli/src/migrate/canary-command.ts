import { randomUUID } from 'node:crypto';
import { Queue } from '@queueport/core';
import { createWebhookSender, type Destination, type WebhookSender } from '@queueport/webhook';
import type { CommandContext, OpenedProvider } from '../command-context';
import { configEnv, type Env } from '../config/config-env';
import type { LoadedConfig } from '../config/config-types';
import { requireConfig } from '../config/require-config';
import { ConfigError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import type { CommandReport } from '../report/report-types';
import type { CanaryPath, CanaryPathKey } from './canary-path';
import { type DualPublishResult, runDualPublishWith } from './dual-publish';
import { listSome } from './list-some';

/** Canary sends wait at most this long for the receiver: short, so the ledger lease is short too. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface CanaryFlags {
  from: string;
  to: string;
  events: number;
  windowMs: number;
  drainMs: number;
}

/** `queueport migrate --from A --to B`: the canary on scratch queues beside both configured ones. */
export async function runCanaryCommand(context: CommandContext, flags: CanaryFlags): Promise<CommandReport> {
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

    const result = await runDualPublishWith(
      {
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
        progress: (line) => context.progress(line),
      },
      { now: () => context.io.now() },
    );
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
