/**
 * What any delivery through the Queue does before a ledger or a worker adds anything: the memory
 * queue's consumer hands each delivery to a handler that POSTs its body through the webhook
 * sender (with the handler's signal, as the DeliveryWorker passes it) and returns, which acks it.
 */
import { Queue } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender } from '@queueport/webhook';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { type Side, timed } from '../runner';
import { subjectQueueOptions } from './bench-telemetry';
import { envelopes, waitForEffects } from './fixtures';

export function consumeAndSend(events: number, concurrency: number): Side {
  return async (label) => {
    const receiver = await startReferenceReceiver({ mode: 'idempotent' });
    // A subject only (delivery-floor's): under --otel its Queue has telemetry on.
    const queue = new Queue(new MemoryDriver({ batchMax: 10 }), subjectQueueOptions());
    const sender = createWebhookSender({
      ssrf: { allowHttp: true, allowLoopback: true },
      connectionsPerOrigin: concurrency,
    });
    const destination = { id: 'bench', url: receiver.url };
    try {
      await queue.publishBatch(envelopes(label, events).map((envelope) => ({ envelope })));
      return await timed(async () => {
        const consumer = queue.consume(
          async (delivery, { signal }) => {
            const outcome = await sender.send(
              { destination, eventId: delivery.envelope.event_id, body: delivery.body },
              signal,
            );
            if (outcome.kind !== 'delivered')
              throw new Error(`POST ${delivery.envelope.event_id}: ${outcome.kind}`);
          },
          { concurrency, waitSeconds: 0.05 },
        );
        await waitForEffects(receiver, events);
        await consumer.close();
        return events;
      });
    } finally {
      await Promise.all([queue.close(), sender.close(), receiver.close()]);
    }
  };
}
