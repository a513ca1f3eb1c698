/**
 * Scenarios that hung the event loop before the payload checks were made linear. Each runs in a
 * worker thread (see `runIsolated`) and returns the code it was refused with, so a regression
 * shows as `hung` instead of a test run that never ends.
 */
import {
  canonicalJson,
  type JsonValue,
  payloadDigest,
  prepareEnvelope,
  Queue,
  QueueError,
} from '@queueport/core';
import { RecordingDriver } from './recording-driver';

type Json = JsonValue;

/** `a.x = a`, `a.y = a`: a cycle with two ways back, 2^64 paths for a depth-limited walk. */
export function forkedCycle(): Json {
  const a: Record<string, unknown> = { id: 1 };
  a.x = a;
  a.y = a;
  return a as Json;
}

/** `[d, d]` sixty times over: 120 values in memory, 2^60 leaves once serialised. */
export function doublingDag(levels = 60): Json {
  let node: unknown = ['leaf'];
  for (let i = 0; i < levels; i++) node = [node, node];
  return node as Json;
}

async function refusal(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof QueueError) return error.code;
    return `untyped ${(error as Error)?.name}`;
  }
  return 'accepted';
}

function publishOf(payload: Json): () => Promise<unknown> {
  const queue = new Queue(new RecordingDriver());
  return () => queue.publish({ envelope: { event_id: 'hostile_1', type: 'test.hostile', payload } });
}

export const publishForkedCycle = () => refusal(publishOf(forkedCycle()));
export const publishDoublingDag = () => refusal(publishOf(doublingDag()));
export const prepareDoublingDag = () =>
  refusal(() => prepareEnvelope({ event_id: 'e', type: 't', payload: doublingDag() }));
export const digestDoublingDag = () => refusal(() => payloadDigest(doublingDag()));
export const canonicalForkedCycle = () => refusal(() => canonicalJson(forkedCycle()));
export const digestForkedCycle = () => refusal(() => payloadDigest(forkedCycle()));
