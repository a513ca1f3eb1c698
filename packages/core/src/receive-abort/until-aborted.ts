/** What `untilAborted` answers once a signal fired before the work settled. */
export const ABORTED = Symbol('aborted');

/**
 * The promise's value, or `ABORTED` as soon as one of the signals fires (at once when one
 * already has): a receive never outlasts its abort. The work itself runs on; a caller whose
 * work takes something from the provider gives it back (`AbandonedTakes`).
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signals: AbortSignal | readonly (AbortSignal | undefined)[] | undefined,
): Promise<T | typeof ABORTED> {
  const listening = (Array.isArray(signals) ? signals : [signals]).filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  if (listening.length === 0) return promise;
  if (listening.some((signal) => signal.aborted)) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    for (const signal of listening) signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      for (const signal of listening) signal.removeEventListener('abort', onAbort);
    };
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
