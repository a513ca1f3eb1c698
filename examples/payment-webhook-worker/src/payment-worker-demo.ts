import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from '@queueport/core';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender, type DeliveryReport, DeliveryWorker } from '@queueport/webhook';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';

export interface DemoSummary {
  published: number;
  events: Array<{
    eventId: string;
    effects: number;
    ledgerState: string | undefined;
    attempts: number | undefined;
  }>;
  reports: DeliveryReport[];
}

const PAYMENTS = [
  { id: 'payment_8472', amount: 4200, currency: 'EUR' },
  { id: 'payment_8473', amount: 1999, currency: 'USD' },
  { id: 'payment_8474', amount: 50000, currency: 'GBP' },
];

/**
 * Three settled payments delivered as signed webhooks. Along the way the publisher retries one
 * publish (a duplicate), the first worker dies right after the merchant accepted a webhook and
 * before it recorded that, and the merchant answers one request with a 503. Each payment still
 * takes effect at the merchant exactly once.
 */
export async function runPaymentWorkerDemo(log: (line: string) => void = () => {}): Promise<DemoSummary> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const dir = await mkdtemp(join(tmpdir(), 'queueport-payments-'));
  let flakyOnce = true;
  const merchant = await startReferenceReceiver({
    mode: 'idempotent',
    secrets: [secret],
    respond: ({ eventId }) => {
      if (eventId === 'payment_8474:settled:v1' && flakyOnce) {
        flakyOnce = false;
        return 503;
      }
      return 200;
    },
  });
  const queue = new Queue(new MemoryDriver());
  const ledger = await openSqliteLedger({ filename: join(dir, 'ledger.sqlite') });
  // Loopback and plain HTTP are refused by default; the demo merchant lives on 127.0.0.1.
  const sender = createWebhookSender({
    ssrf: { allowHttp: true, allowLoopback: true },
    requestTimeoutMs: 2_000,
  });
  const destination = { id: 'merchant-42', url: merchant.url, secrets: [secret] };
  const reports: DeliveryReport[] = [];
  const worker = (workerId: string, crashAfterSendOf?: string) =>
    new DeliveryWorker({
      queue,
      ledger,
      sender,
      workerId,
      route: () => destination,
      ledgerLeaseSeconds: 3,
      leaseMarginSeconds: 1,
      retry: {
        maxAttempts: 5,
        baseMs: 200,
        maxMs: 1_000,
        jitter: 0,
        retryAfterMinMs: 0,
        retryAfterMaxMs: 1_000,
      },
      onReport: (report) => {
        reports.push(report);
        log(
          `${workerId}: ${report.eventId} → ${report.result}${report.crashedAt ? ` (${report.crashedAt})` : ''}`,
        );
      },
      ...(crashAfterSendOf
        ? { crash: (point, eventId) => point === 'after-send' && eventId === crashAfterSendOf }
        : {}),
    });

  try {
    const envelopes = PAYMENTS.map((p) => ({
      event_id: `${p.id}:settled:v1`,
      type: 'payment.settled',
      payload: { payment_id: p.id, amount: p.amount, currency: p.currency },
    }));
    for (const envelope of envelopes) await queue.publish({ envelope });
    // The publisher's retry: absorbed by the queue's dedupe window, and by the ledger if not.
    await queue.publish({ envelope: envelopes[0]! });

    // Worker A handles one delivery and dies after the merchant accepted it.
    const [first] = await queue.receive({ leaseSeconds: 1 });
    if (first) await worker('worker-a', first.envelope.event_id).process(first);

    // Worker B takes over; the abandoned delivery returns once its 1 s lease lapses, and is
    // claimed again once the dead worker's 3 s ledger lease lapses (request timeout 2 s + 1 s margin).
    const b = worker('worker-b');
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const states = await Promise.all(envelopes.map((e) => ledger.get(e.event_id)));
      if (states.every((s) => s && s.state !== 'processing')) break;
      const [delivery] = await queue.receive({ leaseSeconds: 15, waitSeconds: 1 });
      if (delivery) await b.process(delivery);
    }

    const events = [];
    for (const envelope of envelopes) {
      const record = await ledger.get(envelope.event_id);
      events.push({
        eventId: envelope.event_id,
        effects: merchant.effectCount(envelope.event_id),
        ledgerState: record?.state,
        attempts: record?.attempts,
      });
    }
    return { published: envelopes.length + 1, events, reports };
  } finally {
    await queue.close();
    await sender.close();
    await merchant.close();
    await ledger.close();
    await rm(dir, { recursive: true, force: true });
  }
}
