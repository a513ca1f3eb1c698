/**
 * Whether `promise` is still unsettled after the event loop has had several turns: on virtual
 * time nothing else can settle it, so "pending" means "waiting for time to pass".
 */
export async function stillPending(promise: Promise<unknown>, turns = 20): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  return !settled;
}

/** The promise's outcome, without letting a rejection escape unobserved. */
export function outcomeOf<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}
