/**
 * Scenarios that hung the event loop before the payload checks were made linear. Each runs in a
 * worker thread (see `runIsolated`) and returns the code it was refused with. The parts of each
 * graph that every path reaches are watched by a read budget: a walk that is not linear in the
 * serialised size spends it at once and is reported as such, on a loaded machine as on an idle
 * one, instead of being told apart by how long it took.
 */
import {
  canonicalJson,
  DEFAULT_MAX_ENCODED_BYTES,
  type JsonValue,
  payloadDigest,
  prepareEnvelope,
  Queue,
  QueueError,
} from '@queueport/core';
import { RecordingDriver } from './recording-driver';

type Json = JsonValue;

export const EXCEEDED = 'exceeded its read budget';

/** Counts every read of the objects it watches; the read past `limit` throws. */
export class ReadBudget {
  reads = 0;
  exceeded = false;

  constructor(readonly limit: number) {}

  watch<T extends object>(target: T): T {
    const spend = () => {
      this.reads++;
      if (this.reads > this.limit) {
        this.exceeded = true;
        throw new Error(EXCEEDED);
      }
    };
    const counted =
      <A extends unknown[], R>(trap: (...args: A) => R) =>
      (...args: A): R => {
        spend();
        return trap(...args);
      };
    return new Proxy<T>(target, {
      get: counted(Reflect.get),
      has: counted(Reflect.has),
      ownKeys: counted(Reflect.ownKeys),
      getOwnPropertyDescriptor: counted(Reflect.getOwnPropertyDescriptor),
    });
  }
}

/**
 * `a.x = a`, `a.y = a`: a cycle with two ways back, 2^64 paths for a depth-limited walk. Finding
 * the cycle takes a handful of reads of `a`.
 */
export function forkedCycle(budget = new ReadBudget(1_000)): Json {
  const a: Record<string, unknown> = { id: 1 };
  const watched = budget.watch(a);
  a.x = watched;
  a.y = watched;
  return watched as Json;
}

/**
 * Every leaf read adds at least 8 bytes (`["leaf"]`) to the size a reader counts, so a walk
 * that stops at the largest limit a helper uses reaches the shared leaf at most
 * DEFAULT_MAX_ENCODED_BYTES / 8 times; 8 reads per visit is generous.
 */
export const DAG_READ_BUDGET = DEFAULT_MAX_ENCODED_BYTES;

/** `[d, d]` sixty times over: 120 values in memory, 2^60 leaves once serialised. */
export function doublingDag(budget = new ReadBudget(DAG_READ_BUDGET), levels = 60): Json {
  let node: unknown = budget.watch(['leaf']);
  for (let i = 0; i < levels; i++) node = [node, node];
  return node as Json;
}

async function refusal(budget: ReadBudget, run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    // The budget's own throw may come back wrapped (a read that throws is INVALID_ENVELOPE).
    if (budget.exceeded) return EXCEEDED;
    if (error instanceof QueueError) return error.code;
    return `untyped ${(error as Error)?.name}`;
  }
  return budget.exceeded ? EXCEEDED : 'accepted';
}

function publishOf(payload: Json): () => Promise<unknown> {
  const queue = new Queue(new RecordingDriver());
  return () => queue.publish({ envelope: { event_id: 'hostile_1', type: 'test.hostile', payload } });
}

function withBudget(limit: number, scenario: (budget: ReadBudget) => () => unknown): () => Promise<string> {
  return () => {
    const budget = new ReadBudget(limit);
    return refusal(budget, scenario(budget));
  };
}

const CYCLE = 1_000;
export const publishForkedCycle = withBudget(CYCLE, (b) => publishOf(forkedCycle(b)));
export const canonicalForkedCycle = withBudget(CYCLE, (b) => () => canonicalJson(forkedCycle(b)));
export const digestForkedCycle = withBudget(CYCLE, (b) => () => payloadDigest(forkedCycle(b)));
export const publishDoublingDag = withBudget(DAG_READ_BUDGET, (b) => publishOf(doublingDag(b)));
export const prepareDoublingDag = withBudget(
  DAG_READ_BUDGET,
  (b) => () => prepareEnvelope({ event_id: 'e', type: 't', payload: doublingDag(b) }),
);
export const digestDoublingDag = withBudget(DAG_READ_BUDGET, (b) => () => payloadDigest(doublingDag(b)));
/** A walk that ignores the size: the budget must catch it, or it proves nothing. */
export const stringifyDoublingDag = withBudget(DAG_READ_BUDGET, (b) => () => JSON.stringify(doublingDag(b)));
