import type { Queue } from '@queueport/core';

/** Consumes with a no-op handler until `total` deliveries were handled, then closes the consumer. */
export function consumeUntilDone(
  queue: Queue,
  total: number,
  options: { concurrency: number; leaseSeconds: number },
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let done = 0;
    const consumer = queue.consume(async () => {
      if (++done === total) setImmediate(() => void consumer.close().then(() => resolve(done), reject));
    }, options);
  });
}
