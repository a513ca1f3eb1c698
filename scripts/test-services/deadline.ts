/**
 * Settles with `work`, or rejects once `ms` have passed and calls `abandon` so that a client
 * stuck on a server that never answers lets go of its socket instead of holding the process.
 */
export function withDeadline<T>(what: string, ms: number, work: Promise<T>, abandon: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandon();
      reject(new Error(`${what}: no answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
