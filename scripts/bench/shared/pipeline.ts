/**
 * The subject of both delivery scenarios: memory queue → DeliveryWorker → SQLite ledger claim →
 * undici POST to the reference receiver on loopback → ledger commit → ack.
 */
import path from 'node:path';
import { Queue, type Telemetry } from '@queueport/core';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender, DeliveryWorker } from '@queueport/webhook';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { type Side, timed } from '../runner';
import { envelopes, waitForEffects } from './fixtures';

/** What an operator turns on around the pipeline: the Queue's telemetry, and the worker's. */
export interface PipelineObservers {
  telemetry: Telemetry;
  /** Subscribes to the worker; returns the unsubscribe. */
  instrument: (worker: DeliveryWorker) => () => void;
}

export function deliveryPipeline(
  dir: string,
  events: number,
  concurrency: number,
  observers?: PipelineObservers,
): Side {
  return async (label) => {
    const receiver = await startReferenceReceiver({ mode: 'idempotent' });
    const queue = new Queue(
      new MemoryDriver({ batchMax: 10 }),
      observers ? { telemetry: observers.telemetry } : {},
    );
    // A fresh file per round, as the baseline's is: a table grown by earlier rounds would tilt it.
    const ledger = await openSqliteLedger({ filename: path.join(dir, `ledger-${label}.sqlite`) });
    const sender = createWebhookSender({
      ssrf: { allowHttp: true, allowLoopback: true },
      connectionsPerOrigin: concurrency,
    });
    const worker = new DeliveryWorker({
      queue,
      ledger,
      sender,
      route: () => ({ id: 'bench', url: receiver.url }),
    });
    const stopInstrumentation = observers?.instrument(worker);
    try {
      await queue.publishBatch(envelopes(label, events).map((envelope) => ({ envelope })));
      return await timed(async () => {
        const consumer = worker.start({ concurrency, waitSeconds: 0.05 });
        await waitForEffects(receiver, events);
        await consumer.close();
        return events;
      });
    } finally {
      stopInstrumentation?.();
      await Promise.all([queue.close(), sender.close(), receiver.close(), ledger.close()]);
    }
  };
}
