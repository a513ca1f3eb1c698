import { randomBytes } from 'node:crypto';
import { type Delivery, type Queue, redactUrl } from '@queueport/core';
import type { AdapterDefinition, PreflightCheck } from '@queueport/core/driver';
import type { Ledger } from '@queueport/ledger';
import {
  createWebhookSender,
  type DeliveryOutcome,
  type DeliveryReport,
  DeliveryWorker,
  type Destination,
  type WebhookSender,
} from '@queueport/webhook';
import type { CommandContext, OpenedProvider } from '../command-context';
import type { Env } from '../config/config-env';
import type { ReceiverConfig } from '../config/config-types';
import type { CheckResult } from '../report/report-types';
import { unreachableBecause } from './reachability';
import {
  describeFailure,
  describeOpenFailure,
  EARLIER_STEP_FAILED,
  INTERRUPTED,
  StepFailure,
  type StepRunner,
  stepRunner,
  withDeadline,
} from './step';

/** The canary's steps, in the order they run and are reported. */
export const CANARY_STEPS = {
  open: {
    id: 'canary.open',
    title: 'the provider opens: its URL is understood and its credentials accepted',
  },
  preflight: {
    id: 'canary.preflight',
    title: "the provider's preflight checks run (its adapter's own, e.g. a schema still current)",
  },
  publish: { id: 'canary.publish', title: 'a synthetic event is published' },
  consume: { id: 'canary.consume', title: 'the synthetic event is received back' },
  deliver: { id: 'canary.deliver', title: 'the delivery worker delivers it to the receiver (2xx)' },
  ledger: { id: 'canary.ledger', title: 'the ledger records the event as delivered' },
} as const;

export interface CanaryOptions {
  /** The provider's name in the configuration. */
  provider: string;
  /** Its URL as configured (unredacted): the adapter's preflight reads it. */
  url: string;
  context: CommandContext;
  /** The configured ledger, opened once for every provider of the drill. */
  ledger: () => Promise<Ledger>;
  receiver: ReceiverConfig | undefined;
  /** The configuration's environment: where `receiver.secretEnv` is read. */
  env: Env;
  /** The bound of each step. */
  timeoutMs: number;
}

export interface CanaryRun {
  checks: CheckResult[];
  /** Open when `canary.open` passed; the caller closes it. */
  opened: OpenedProvider | undefined;
  eventId: string;
  /** No step failed. */
  ok: boolean;
}

/**
 * Messages the canary holds back while it looks for its own in a busy queue. Past this, the
 * queue is someone's work queue rather than a drill queue, and the canary stops looking.
 */
const MAX_HELD = 100;
/** Between receives on a provider without long polls. */
const POLL_PAUSE_MS = 100;

/** `drill_<epoch ms>_<random>:canary`: unique per run, and sortable by when it was sent. */
export function canaryEventId(at = Date.now()): string {
  return `drill_${at}_${randomBytes(6).toString('hex')}:canary`;
}

/**
 * One synthetic event through the whole exit path of one provider: open, the adapter's preflight, publish,
 * receive, deliver through the delivery worker to the receiver, ledger. Never throws for what
 * it checks; a step that fails turns the ones after it into skips.
 */
export async function runCanary(options: CanaryOptions): Promise<CanaryRun> {
  const { context, provider, timeoutMs } = options;
  const eventId = canaryEventId();
  const secret = options.receiver?.secretEnv ? options.env[options.receiver.secretEnv] : undefined;
  const steps = stepRunner(
    provider,
    () => context.io.now(),
    secret ? [secret] : [],
    (line, lineOptions) => context.progress(line, lineOptions),
  );
  const checks: CheckResult[] = [];
  let opened: OpenedProvider | undefined;

  checks.push(
    await steps.run(
      CANARY_STEPS.open,
      async () => {
        checkUrl(options.url);
        try {
          opened = await withDeadline(context.openProvider(provider), timeoutMs, 'opening the provider', {
            onLate: (late) => late.close(),
            signal: context.signal,
          });
        } catch (error) {
          // The adapter said nothing in time: the drill finds out itself whether anything listens.
          if (!(error instanceof StepFailure) || context.signal?.aborted) throw error;
          const definition = await adapterOf(options);
          const because = await unreachableBecause(options.url, definition, Math.min(timeoutMs, PROBE_MS));
          if (!because) throw error;
          throw new StepFailure(
            `the provider could not be reached: ${because} (the adapter gave no answer within ${timeoutMs} ms)`,
          );
        }
        return `${opened.definition.packageName} opened ${opened.url}`;
      },
      describeOpenFailure,
    ),
  );
  // A preflight needs no open queue, and what it checks (a drifted schema) is often why opening
  // failed: it runs either way, so the report says so.
  checks.push(...(await preflightSteps(steps, options, opened?.definition)));

  const ok = () => checks.every((check) => check.status !== 'failed');
  const state: { published?: boolean; consumed?: boolean; mine?: Delivery; ledger?: Ledger } = {};
  const rest: [Pick<CheckResult, 'id' | 'title'>, (queue: Queue) => Promise<string>][] = [
    [
      CANARY_STEPS.publish,
      async (queue) => {
        const detail = await publish(queue, options, eventId);
        state.published = true;
        return detail;
      },
    ],
    [
      CANARY_STEPS.consume,
      async (queue) => {
        state.consumed = true;
        const found = await consume(queue, eventId, timeoutMs, () => context.io.now(), context.signal);
        state.mine = found.delivery;
        return found.detail;
      },
    ],
    [
      CANARY_STEPS.deliver,
      async (queue) => {
        const { detail, ledger } = await deliver(queue, state.mine!, options, secret);
        state.ledger = ledger;
        return detail;
      },
    ],
    [CANARY_STEPS.ledger, () => confirmLedger(state.ledger!, eventId, timeoutMs)],
  ];
  for (const [step, run] of rest) {
    const queue = opened?.queue;
    if (context.signal?.aborted === true) checks.push(steps.skipped(step, INTERRUPTED));
    else {
      checks.push(
        queue && ok() ? await steps.run(step, () => run(queue)) : steps.skipped(step, EARLIER_STEP_FAILED),
      );
    }
  }
  if (opened && state.published) await takeBack(opened.queue, state, eventId, timeoutMs, context);
  return { checks, opened, eventId, ok: ok() && context.signal?.aborted !== true };
}

/** The bound of the probe that names why a provider did not answer. */
const PROBE_MS = 3_000;

/**
 * The canary is the drill's own: however the drill ended (a failed step, an interrupt), it must
 * not stay on the queue for the application's consumers, nor in its dead letters, from where
 * `dlq redrive` would put it back into the application's queue.
 */
async function takeBack(
  queue: Queue,
  state: { consumed?: boolean; mine?: Delivery },
  eventId: string,
  timeoutMs: number,
  context: CommandContext,
): Promise<void> {
  if (state.mine) {
    if (!state.mine.settled) await state.mine.ack().catch(() => undefined);
    return;
  }
  // Interrupted before or while receiving: one bounded look for it. After a consume step that
  // failed on its own, looking again would only take as long and find nothing.
  if (state.consumed && context.signal?.aborted !== true) return;
  try {
    const found = await consume(queue, eventId, Math.min(timeoutMs, PROBE_MS), () => context.io.now());
    await found.delivery.ack();
  } catch {
    context.progress(`drill: the canary ${eventId} could not be taken back off the queue`);
  }
}

function checkUrl(url: string): void {
  try {
    new URL(url);
  } catch {
    throw new StepFailure(
      "misconfigured URL: the provider's URL is not a URL (not shown, in case it holds a secret)",
    );
  }
}

/** The adapter serving the provider, loaded without opening it; undefined where it cannot be. */
async function adapterOf(options: CanaryOptions): Promise<AdapterDefinition | undefined> {
  try {
    return await options.context.adapterFor?.(options.provider);
  } catch {
    // The open step says why.
    return undefined;
  }
}

/** Past the preflight's own bound (each check's calls get `timeoutMs`), the drill stops waiting. */
const PREFLIGHT_GRACE_MS = 2_000;

/**
 * The adapter's preflight checks (`AdapterDefinition.preflight`), one row each:
 * `canary.preflight.<name>`. None for an adapter that declares no preflight; one failed
 * `canary.preflight` row where the preflight itself threw or overran its bound.
 */
async function preflightSteps(
  steps: StepRunner,
  options: CanaryOptions,
  opened: AdapterDefinition | undefined,
): Promise<CheckResult[]> {
  if (!URL.canParse(options.url)) return [];
  const definition = opened ?? (await adapterOf(options));
  const preflight = definition?.preflight;
  if (!definition || !preflight) return [];
  const { context, timeoutMs } = options;
  const started = context.io.now();
  let found: PreflightCheck[] = [];
  const ran = await steps.run(CANARY_STEPS.preflight, async () => {
    found = await withDeadline(
      Promise.resolve(
        preflight.call(definition, new URL(options.url), {
          env: options.env,
          timeoutMs,
          ...(context.signal ? { signal: context.signal } : {}),
        }),
      ),
      timeoutMs + PREFLIGHT_GRACE_MS,
      'running the preflight checks',
      { shownMs: timeoutMs, signal: context.signal },
    );
    return `${found.length} check${found.length === 1 ? '' : 's'}`;
  });
  if (ran.status === 'failed') return [ran];
  const durationMs = context.io.now() - started;
  return found.map((check, index) =>
    steps.recorded(
      { id: `${CANARY_STEPS.preflight.id}.${check.name}`, title: `preflight: ${check.name}` },
      {
        ok: check.ok,
        detail: check.ok || !check.fix ? check.detail : `${check.detail}\n${check.fix}`,
        // One call made them all: its time is the first row's.
        durationMs: index === 0 ? durationMs : 0,
      },
    ),
  );
}

async function publish(queue: Queue, options: CanaryOptions, eventId: string): Promise<string> {
  const receipt = await withDeadline(
    queue.publish({
      envelope: {
        event_id: eventId,
        type: 'queueport.drill.canary',
        payload: { drill: true, provider: options.provider },
      },
    }),
    options.timeoutMs,
    'publishing the canary',
  );
  if (receipt.duplicate) {
    throw new StepFailure(
      `the provider called the canary ${eventId} a duplicate, though its event id was never sent before: its deduplication keys are wrong`,
    );
  }
  return `published ${eventId} (${receipt.sizeBytes} bytes, message ${receipt.messageId})`;
}

/**
 * Receives until the canary is among what came back. Other messages (a drill queue someone
 * else also uses, a canary of an earlier run) are held until then and released unchanged, so
 * the drill neither consumes nor reorders them, nor receives them over and over.
 */
async function consume(
  queue: Queue,
  eventId: string,
  timeoutMs: number,
  now: () => number,
  signal?: AbortSignal,
): Promise<{ delivery: Delivery; detail: string }> {
  const caps = queue.capabilities;
  // The lease must outlast the rest of the search and the delivery after it.
  const leaseSeconds = clamp(
    Math.ceil((2 * timeoutMs) / 1000) + 5,
    caps.leaseSeconds.min,
    caps.leaseSeconds.max,
  );
  const maxMessages = Math.max(1, Math.min(caps.batch.receive, 10));
  const deadline = now() + timeoutMs;
  const held: Delivery[] = [];
  let receives = 0;
  let found: Delivery | undefined;
  try {
    while (!found) {
      const left = deadline - now();
      if (left <= 0) {
        const others = held.length > 0 ? `; ${held.length} other message(s) came back instead` : '';
        throw new StepFailure(
          `not received within ${timeoutMs} ms (${receives} receive call(s))${others}. If another consumer reads this queue it may have taken the canary: point the drill at a queue of its own`,
        );
      }
      const waitSeconds = Math.min(caps.longPollMaxSeconds, Math.floor(left / 1000));
      // A long poll may answer right at its end: a second's grace past what is left of the bound.
      const batch = await withDeadline(
        queue.receive({ maxMessages, leaseSeconds, waitSeconds }),
        left + 1000,
        'receiving',
        { shownMs: timeoutMs, signal },
      );
      receives++;
      for (const delivery of batch) {
        if (!found && delivery.envelope.event_id === eventId) found = delivery;
        else held.push(delivery);
      }
      if (held.length > MAX_HELD) {
        throw new StepFailure(
          `the canary was not among the first ${held.length} messages received: this queue holds other work; point the drill at a queue of its own`,
        );
      }
      if (!found && batch.length === 0 && waitSeconds === 0) await pause(Math.min(POLL_PAUSE_MS, left));
    }
  } finally {
    if (held.length > 0)
      await queue.releaseBatch(held.map((delivery) => ({ delivery }))).catch(() => undefined);
  }
  const others = held.length > 0 ? `, ${held.length} other message(s) released unchanged` : '';
  return {
    delivery: found,
    detail: `received after ${receives} receive call(s), receive count ${found.receiveCount}${others}`,
  };
}

const INSECURE_SSRF = {
  allowHttp: true,
  allowLoopback: true,
  // Local drills run in a container network as often as on loopback.
  allowPrivateCidrs: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Hands the canary to a DeliveryWorker, the one the application runs: ledger claim, a signed
 * POST to the receiver, ledger commit, ack. One attempt only: a refusal is the answer the drill
 * reports, and the canary must not linger on the queue as a retry for someone else's worker.
 */
async function deliver(
  queue: Queue,
  mine: Delivery,
  options: CanaryOptions,
  secret: string | undefined,
): Promise<{ detail: string; ledger: Ledger }> {
  const { receiver, timeoutMs } = options;
  let sender: WebhookSender | undefined;
  try {
    if (!receiver) {
      throw new StepFailure(
        'no receiver is configured: set receiver.url to where the drill may deliver its synthetic event',
      );
    }
    if (receiver.secretEnv && !secret) {
      throw new StepFailure(
        `the receiver's signing secret is missing: receiver.secretEnv names ${receiver.secretEnv}, which is not set`,
      );
    }
    let ledger: Ledger;
    try {
      ledger = await withDeadline(options.ledger(), timeoutMs, 'opening the ledger');
    } catch (error) {
      throw new StepFailure(`the ledger could not be opened: ${describeFailure(error)}`);
    }
    sender = createWebhookSender({
      requestTimeoutMs: timeoutMs,
      connectTimeoutMs: timeoutMs,
      headersTimeoutMs: timeoutMs,
      bodyTimeoutMs: timeoutMs,
      ...(receiver.allowInsecure ? { ssrf: INSECURE_SSRF } : {}),
    });
    const destination: Destination = {
      id: 'drill-receiver',
      url: receiver.url,
      ...(secret ? { secrets: [secret] } : {}),
    };
    let report: DeliveryReport | undefined;
    const worker = new DeliveryWorker({
      queue,
      ledger,
      sender,
      route: () => destination,
      retry: { maxAttempts: 1 },
      workerId: 'queueport-drill',
      onReport: (r) => {
        report = r;
      },
      logger: { warn: (message) => options.context.progress(`drill ${options.provider}: ${message}`) },
    });
    let result: Awaited<ReturnType<DeliveryWorker['process']>>;
    try {
      result = await worker.process(neverDeadLettered(mine));
    } catch (error) {
      throw new StepFailure(`the delivery worker failed: ${describeFailure(error)}`);
    }
    const outcome = report?.outcome;
    const answer = describeOutcome(outcome, receiver.allowInsecure === true);
    switch (result) {
      case 'delivered':
        return { detail: `${answer} (${redactUrl(receiver.url)})`, ledger };
      case 'failed':
      case 'retry-scheduled':
        throw new StepFailure(
          `${answer}; the ledger records the canary as ${result === 'failed' ? 'failed' : 'to retry'}`,
        );
      case 'already-settled':
        throw new StepFailure(
          `the ledger already held ${mine.envelope.event_id} as settled, though the drill just made it up`,
        );
      case 'busy':
        throw new StepFailure(
          `the ledger says another worker holds ${mine.envelope.event_id}, though the drill just made it up`,
        );
      case 'conflict':
        throw new StepFailure(`the ledger holds ${mine.envelope.event_id} with another payload digest`);
      case 'lease-lost':
        throw new StepFailure(`${answer}, but the ledger lease ran out before the outcome was recorded`);
      default:
        throw new StepFailure(`the delivery worker ended with ${result}`);
    }
  } finally {
    await sender?.close().catch(() => undefined);
    // The canary is the drill's own: whatever happened, it must not stay for another consumer.
    if (!mine.settled) await mine.ack().catch(() => undefined);
  }
}

/**
 * The canary as the worker sees it, except that giving up acks it: the ledger holds the failure
 * and the report says why, while a canary in the dead letters would reach the application's
 * queue again with the next `dlq redrive`.
 */
export function neverDeadLettered(delivery: Delivery): Delivery {
  return {
    get envelope() {
      return delivery.envelope;
    },
    get body() {
      return delivery.body;
    },
    get attributes() {
      return delivery.attributes;
    },
    get receiveCount() {
      return delivery.receiveCount;
    },
    get messageId() {
      return delivery.messageId;
    },
    get receipt() {
      return delivery.receipt;
    },
    ...(delivery.groupId === undefined ? {} : { groupId: delivery.groupId }),
    get leaseExpiresAt() {
      return delivery.leaseExpiresAt;
    },
    get settled() {
      return delivery.settled;
    },
    ack: () => delivery.ack(),
    release: (options) => delivery.release(options),
    extendLease: (leaseSeconds) => delivery.extendLease(leaseSeconds),
    deadLetter: () => delivery.ack(),
  };
}

/** The receiver's answer, or why there was none, for the report. */
export function describeOutcome(outcome: DeliveryOutcome | undefined, allowInsecure: boolean): string {
  if (!outcome) return 'the delivery worker reported no outcome';
  if (outcome.kind === 'delivered')
    return `the receiver answered HTTP ${outcome.status} in ${outcome.attemptMs} ms`;
  if (outcome.kind === 'terminal' && outcome.refusal) {
    const hint = allowInsecure
      ? ''
      : '; a local receiver (plain HTTP, loopback or a private address) needs receiver.allowInsecure';
    return `receiver refused before sending: the webhook sender's SSRF guard refused its URL (${outcome.reason})${hint}`;
  }
  if (outcome.status !== undefined) {
    // The sender's reasons start with the status already: only what follows adds anything.
    const more = outcome.reason.replace(new RegExp(`^http ${outcome.status}[:,]?\\s*`), '');
    return `receiver refused: it answered HTTP ${outcome.status}${more ? ` (${more})` : ''}`;
  }
  // A secret the sender cannot use fails before any connection: the configuration, not the network.
  if (/signing secret/i.test(outcome.reason)) return `receiver misconfigured: ${outcome.reason}`;
  return `receiver unreachable: ${outcome.reason}`;
}

async function confirmLedger(ledger: Ledger, eventId: string, timeoutMs: number): Promise<string> {
  const record = await withDeadline(ledger.get(eventId), timeoutMs, 'reading the ledger');
  if (!record) throw new StepFailure(`ledger not delivered: it has no row for ${eventId}`);
  if (record.state !== 'delivered') {
    throw new StepFailure(
      `ledger not delivered: the row for ${eventId} is ${record.state} (last outcome: ${record.lastOutcome ?? 'none'})`,
    );
  }
  return `delivered after ${record.attempts} attempt(s), last outcome ${record.lastOutcome ?? 'none'}`;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
