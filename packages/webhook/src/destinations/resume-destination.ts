import { type AnyQueue, type Clock, type Envelope, QueueError } from '@queueport/core';
import {
  type DestinationStateStore,
  destinationStoreOf,
  type Ledger,
  MAX_BATCH_ENTRIES,
  type ParkedCursor,
  type ParkedEvent,
} from '@queueport/ledger';
import { messageOf } from '../reconcile/message-of';
import { publishIsolated } from '../reconcile/publish-isolated';

export interface ResumeDestinationOptions {
  /** The ledger whose destination state holds the parked events (or pass `store`). */
  ledger?: Ledger;
  /** The destination state store itself; default: the ledger's (`ledger.destinations`). */
  store?: DestinationStateStore;
  /** Where the parked events are republished: the queue their delivery workers consume. */
  queue: AnyQueue;
  destinationId: string;
  /** Parked events read, published and unparked together. Default 100, at most MAX_BATCH_ENTRIES. */
  batchSize?: number;
  /**
   * The longest the resume waits for the queue's dedupe window to pass over events parked
   * within it (a republish inside the window would be absorbed: the event would be lost).
   * Default 600 000; 0 does not wait, and leaves those events parked for the next resume.
   */
  maxWaitMs?: number;
  /** Default: the queue's. */
  clock?: Clock;
  /** Stops the resume between pages (and its waits); what is done stays done. */
  signal?: AbortSignal;
  /** A line per page and per wait, for people. */
  progress?: (line: string) => void;
}

export interface ResumeResult {
  destinationId: string;
  /** This call enabled it (false: it was enabled already, e.g. a resume run again). */
  enabled: boolean;
  /** Republished, in due order, and unparked. */
  republished: number;
  /** Parked, but their ledger rows were delivered or failed meanwhile: unparked only. */
  settled: number;
  /** Still parked when the resume ended: run it again (`complete` is false). */
  remaining: number;
  /**
   * When the first event still held back by the queue's dedupe window may be republished (a
   * resume then carries on), if the wait for it was longer than `maxWaitMs`.
   */
  resumableAt?: number;
  /** Still parked: their republish failed (a bad body, the queue refusing). At most 100 listed. */
  failed: { eventId: string; error: string }[];
  /** Nothing is left parked for the destination. */
  complete: boolean;
}

export const DEFAULT_RESUME_BATCH = 100;
export const DEFAULT_RESUME_MAX_WAIT_MS = 600_000;
/** A republish absorbed by a queue that keeps dedupe keys while a message exists: tried again this much later. */
const ABSORBED_RETRY_MS = 5_000;
const MAX_FAILED_LISTED = 100;

/**
 * Enables a destination and republishes its parked events to the queue in due order (when each
 * first came due), each before its parked row is removed: a crash in between republishes it
 * twice, and the ledger's claim absorbs the second. An event whose ledger row is delivered or
 * failed already is only unparked.
 *
 * The queue dedupes on the event id, and a parked event's message was acked: a republish the
 * dedupe still remembers would be absorbed, and nothing would deliver the event. So where the
 * queue dedupes over a window, an event parked within it waits for the window to pass (up to
 * `maxWaitMs`, holding back those after it, to keep the order); where the queue reports an
 * absorbed repeat, the event stays parked and is tried again. A resume cut short leaves the rest
 * parked, and running it again carries on.
 */
export async function resumeDestination(options: ResumeDestinationOptions): Promise<ResumeResult> {
  const { store, batchSize, maxWaitMs } = checkResume(options);
  const { queue, destinationId, signal } = options;
  const clock = options.clock ?? queue.clock;
  const progress = options.progress ?? (() => {});
  const deadline = clock.now() + maxWaitMs;
  const dedupe = queue.capabilities.dedupe;
  const windowMs = dedupe.kind === 'window' ? dedupe.windowSeconds * 1000 : 0;
  const failed = new Map<string, string>();
  const result: ResumeResult = {
    destinationId,
    enabled: (await store.enable(destinationId)).changed,
    republished: 0,
    settled: 0,
    remaining: 0,
    failed: [],
    complete: false,
  };

  for (;;) {
    const holdUntil = await walk();
    if (holdUntil === undefined || signal?.aborted) break;
    if (holdUntil > deadline) {
      result.resumableAt = holdUntil;
      break;
    }
    const waitMs = Math.max(0, holdUntil - clock.now());
    progress(`resume ${destinationId}: waiting ${Math.ceil(waitMs / 1000)} s for the queue's dedupe window`);
    try {
      await clock.sleep(waitMs, signal);
    } catch {
      break;
    }
  }
  result.failed = [...failed].slice(0, MAX_FAILED_LISTED).map(([eventId, error]) => ({ eventId, error }));
  result.remaining = (await store.get(destinationId))?.parked ?? 0;
  result.complete = result.remaining === 0;
  return result;

  /** One walk over the parked events in due order; returns when the first one held back may go. */
  async function walk(): Promise<number | undefined> {
    let after: ParkedCursor | undefined;
    let holdUntil: number | undefined;
    while (!signal?.aborted) {
      const page = await store.listParked({ destinationId, limit: batchSize, ...(after ? { after } : {}) });
      if (page.length === 0) return holdUntil;
      const last = page[page.length - 1]!;
      after = { dueAt: last.dueAt, eventId: last.eventId };
      const now = clock.now();
      const done: ParkedEvent[] = [];
      const ready: { parked: ParkedEvent; envelope: Envelope }[] = [];
      for (const parked of page) {
        if (parked.ledgerState === 'delivered' || parked.ledgerState === 'failed') {
          done.push(parked);
          result.settled++;
          continue;
        }
        if (holdUntil !== undefined || failed.has(parked.eventId)) continue;
        // Its message was published before it was parked: the window has passed by this time.
        if (parked.parkedAt + windowMs > now) {
          holdUntil = parked.parkedAt + windowMs;
          continue;
        }
        try {
          ready.push({ parked, envelope: JSON.parse(parked.body) as Envelope });
        } catch (error) {
          failed.set(parked.eventId, `the parked body is not JSON: ${messageOf(error)}`);
        }
      }
      const outcomes = await publishIsolated(
        queue,
        ready.map(({ envelope }) => ({ envelope })),
      );
      outcomes.forEach((outcome, i) => {
        const { parked } = ready[i]!;
        if (outcome.kind === 'failed') failed.set(parked.eventId, outcome.error);
        else if (outcome.kind === 'published' && outcome.duplicate) {
          holdUntil ??= clock.now() + (windowMs || ABSORBED_RETRY_MS);
        } else if (outcome.kind === 'published') {
          done.push(parked);
          result.republished++;
        }
      });
      // Only now: each row goes after its event is back on the queue.
      await store.unpark(done);
      progress(
        `resume ${destinationId}: ${result.republished} republished, ${result.settled} settled already`,
      );
    }
    return undefined;
  }
}

function checkResume(options: ResumeDestinationOptions): {
  store: DestinationStateStore;
  batchSize: number;
  maxWaitMs: number;
} {
  const bad = (message: string, field: string) =>
    new QueueError('INVALID_ARGUMENT', `resumeDestination: ${message}`, { details: { field } });
  if (options === null || typeof options !== 'object') throw bad('takes an options object', 'options');
  const store = options.store ?? (options.ledger && destinationStoreOf(options.ledger));
  if (!store)
    throw bad('needs a ledger that keeps destination state (SQLite, PostgreSQL), or a store', 'store');
  if (!options.queue) throw bad('needs the queue to republish to', 'queue');
  if (typeof options.destinationId !== 'string' || options.destinationId === '') {
    throw bad('destinationId must be a non-empty string', 'destinationId');
  }
  const batchSize = options.batchSize ?? DEFAULT_RESUME_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_ENTRIES) {
    throw bad(`batchSize must be a whole number from 1 to ${MAX_BATCH_ENTRIES}`, 'batchSize');
  }
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_RESUME_MAX_WAIT_MS;
  if (!Number.isFinite(maxWaitMs) || maxWaitMs < 0) throw bad('maxWaitMs must be ≥ 0', 'maxWaitMs');
  return { store, batchSize, maxWaitMs };
}
