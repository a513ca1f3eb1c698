/**
 * What a fuzz target may tell the runner (all optional): what each case ended with, for the
 * outcome counts, and what to clean up once the target has run.
 *
 * A case's predicate calls `recordOutcome(value)` with what a call under test returned or threw,
 * once per call it makes; the runner classifies each with the target's `classify` (or
 * `classifyOutcome`) and counts the classes. A case that records nothing counts as `passed`.
 * Recording is optional: a target that never records is still run and checked.
 * `labelled(label, outcome)` (or `outcomeOf(call, label)`) names the call, so the counts read
 * `ackBatch: LEASE_LOST` instead of `LEASE_LOST`.
 *
 * Whatever is recorded, an error that is not a QueueError (an untyped exception) fails the case
 * even if the predicate itself let it pass.
 *
 * A target may instead count its own cases and hand the counts over through `FuzzTarget.counts`;
 * the runner then shows those (added to whatever was recorded here).
 */

type Sink = (outcome: unknown) => void;

let sink: Sink | undefined;
const disposers: Array<() => unknown> = [];

export function recordOutcome(outcome: unknown): void {
  sink?.(outcome);
}

/**
 * Registers cleanup (a temporary ledger, a queue) for after the current target's last case,
 * so a target can open its resources lazily in its first case and keep them across cases.
 */
export function afterTarget(dispose: () => unknown): void {
  disposers.push(dispose);
}

/** The runner's side: where outcomes go while a target runs. */
export function setOutcomeSink(next: Sink | undefined): void {
  sink = next;
}

/** The runner's side: runs and forgets the cleanups registered so far; returns their errors. */
export async function disposeTarget(): Promise<unknown[]> {
  const errors: unknown[] = [];
  for (const dispose of disposers.splice(0).reverse()) {
    try {
      await dispose();
    } catch (error) {
      errors.push(error);
    }
  }
  return errors;
}

/** A broken promise of the code under test, as opposed to an exception it let escape. */
export class PropertyViolation extends Error {
  override readonly name = 'PropertyViolation';
}

/** Fails the case with a PropertyViolation unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new PropertyViolation(message);
}

/** A QueueError by shape, so two copies of core (or a realm boundary) still count as typed. */
export function isTypedError(value: unknown): value is Error & { code: string } {
  return (
    value instanceof Error &&
    value.name === 'QueueError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

const LABEL = Symbol.for('queueport.fuzz.label');

export interface Labelled {
  [LABEL]: string;
  outcome: unknown;
}

/** An outcome with the name of the call it came from. */
export function labelled(label: string, outcome: unknown): Labelled {
  return { [LABEL]: label, outcome };
}

/** The outcome itself, with its label taken off. */
export function unlabelled(outcome: unknown): unknown {
  return outcome !== null && typeof outcome === 'object' && LABEL in outcome
    ? (outcome as Labelled).outcome
    : outcome;
}

/** Thrown things that are not QueueErrors: what the fuzzers exist to find. */
export function isUntypedError(value: unknown): boolean {
  const outcome = unlabelled(value);
  return outcome instanceof Error && !isTypedError(outcome);
}

/** `ok`, the QueueError's code, or `untyped <Name>`; prefixed with the label, if any. */
export function classifyOutcome(outcome: unknown): string {
  const label =
    outcome !== null && typeof outcome === 'object' && LABEL in outcome ? (outcome as Labelled)[LABEL] : '';
  const inner = unlabelled(outcome);
  const kind = isTypedError(inner) ? inner.code : inner instanceof Error ? `untyped ${inner.name}` : 'ok';
  return label ? `${label}: ${kind}` : kind;
}

/**
 * Runs the call under test and records how it ended: its value, or the QueueError it threw.
 * Anything else thrown is rethrown, so the property fails with it and fast-check shrinks it.
 */
export async function outcomeOf<T>(
  call: () => T | Promise<T>,
  label?: string,
): Promise<{ ok: true; value: T } | { ok: false; error: Error & { code: string } }> {
  try {
    return succeeded(await call(), label);
  } catch (error) {
    return failed(error, label);
  }
}

/** `outcomeOf` for a synchronous call. */
export function outcomeOfSync<T>(
  call: () => T,
  label?: string,
): { ok: true; value: T } | { ok: false; error: Error & { code: string } } {
  try {
    return succeeded(call(), label);
  } catch (error) {
    return failed(error, label);
  }
}

function succeeded<T>(value: T, label: string | undefined): { ok: true; value: T } {
  recordOutcome(label === undefined ? value : labelled(label, value));
  return { ok: true, value };
}

/** A typed error is an outcome; anything else is recorded, then fails the case. */
function failed(error: unknown, label: string | undefined): { ok: false; error: Error & { code: string } } {
  recordOutcome(label === undefined ? error : labelled(label, error));
  if (isTypedError(error)) return { ok: false, error };
  throw error;
}
