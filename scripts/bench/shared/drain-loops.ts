import type { ConsumeOptions, Delivery, Queue, ReceiveOptions } from '@queueport/core';

export interface DrainLoopOptions {
  /** How many receive loops run at once. */
  concurrency: number;
  /**
   * Empty receives, across the loops, before the round fails: bounded, so a message the server
   * lost fails the round instead of spinning forever. 1,000 by default.
   */
  maxEmpties?: number;
  /** Awaited after an empty receive, before the next (a turn of the event loop, say). */
  afterEmpty?: () => Promise<void>;
}

/**
 * `concurrency` loops, each receiving and acking what it got, until all `total` messages were
 * received; a loop whose receive comes back empty (the others hold the last ones) ends once all
 * are claimed. Resolves with the number of distinct messages acked, after every ack returned.
 * A server that hands one message to two concurrent receives (moto's threads can) has the
 * repeat acked too but counted once, on both sides of a pair alike.
 */
export async function drainInLoops<M>(
  total: number,
  receive: () => Promise<readonly M[]>,
  idOf: (message: M) => string,
  ack: (batch: readonly M[]) => Promise<void>,
  { concurrency, maxEmpties = 1_000, afterEmpty }: DrainLoopOptions,
): Promise<number> {
  const seen = new Set<string>();
  let empties = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (seen.size < total) {
        const batch = await receive();
        if (batch.length === 0) {
          if (++empties > maxEmpties) throw new Error(`only ${seen.size} of ${total} messages came back`);
          await afterEmpty?.();
          continue;
        }
        for (const message of batch) seen.add(idOf(message));
        await ack(batch);
      }
    }),
  );
  if (seen.size !== total) throw new Error(`received ${seen.size} distinct messages of ${total}`);
  return seen.size;
}

/** Loops of queue.receive + queue.ackBatch, as a raw drain does by hand; an ack that fails fails the round. */
export function drainQueueInLoops(
  queue: Queue,
  total: number,
  receive: ReceiveOptions,
  options: DrainLoopOptions,
): Promise<number> {
  return drainInLoops<Delivery>(
    total,
    () => queue.receive(receive),
    (delivery) => delivery.messageId,
    async (batch) => {
      const failed = (await queue.ackBatch(batch)).find((result) => !result.ok);
      if (failed && !failed.ok) throw failed.error;
    },
    options,
  );
}

/**
 * Consumes with a handler that does nothing until `total` distinct messages were acked: the
 * clock stops at the last ack, and the consumer is closed after, with the Queue.
 */
export function consumeUntilAcked(queue: Queue, total: number, options: ConsumeOptions): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const seen = new Set<string>();
    const consumer = queue.consume(async () => {}, options);
    consumer.on('acked', ({ delivery }) => {
      seen.add(delivery.messageId);
      if (seen.size === total) resolve(total);
    });
    consumer.on('error', (event) => reject(event.error));
  });
}
