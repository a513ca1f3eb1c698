import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender, type DeliveryReport, DeliveryWorker } from '@queueport/webhook';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instrumentWorker, otelTelemetry } from '../src';
import { type OtelHarness, otelHarness } from './otel-harness';
import { LEDGER_STORES, until } from './worker-world';

const OBJECTIVE_MS = 60_000;

describe.each(LEDGER_STORES)('delivery and claim metrics, ledger on $name', (store) => {
  let otel: OtelHarness;
  beforeEach(() => {
    otel = otelHarness();
  });
  afterEach(() => otel.close());

  it('counts outcomes per destination, claim outcomes, webhook retries and the share delivered within the objective', async () => {
    const clock = new VirtualClock();
    const { ledger, dispose } = await store.open(clock);
    const answers = new Map<string, number[]>([['slow', [503]]]);
    const receiver = await startReferenceReceiver({
      mode: 'idempotent',
      respond: ({ eventId }) => answers.get(eventId)?.shift() ?? 200,
    });
    const sender = createWebhookSender({
      ssrf: { allowHttp: true, allowLoopback: true },
      requestTimeoutMs: 5_000,
    });
    const telemetry = otelTelemetry({
      meterProvider: otel.meterProvider,
      tracerProvider: otel.tracerProvider,
    });
    const queue = new Queue(new MemoryDriver({ clock }), { clock, telemetry, logger: { warn: () => {} } });
    const worker = new DeliveryWorker({
      queue,
      ledger,
      sender,
      clock,
      route: (envelope) => ({
        id: envelope.type === 'audit.logged' ? 'audit-sink' : 'billing',
        url: receiver.url,
      }),
    });
    const stop = instrumentWorker(worker, {
      meterProvider: otel.meterProvider,
      objectiveMs: OBJECTIVE_MS,
      clock,
    });
    const reports: DeliveryReport[] = [];
    worker.on('report', (report) => void reports.push(report));
    const delivered = () => reports.filter((r) => r.result === 'delivered').length;

    const twoMinutesAgo = new Date(clock.now() - 120_000).toISOString();
    await queue.publishBatch([
      { envelope: { event_id: 'fast', type: 'invoice.paid', payload: { n: 1 } } },
      { envelope: { event_id: 'slow', type: 'invoice.paid', payload: { n: 2 } } },
      // Occurred long before it was published: delivered, but past the objective.
      { envelope: { event_id: 'late', type: 'audit.logged', payload: { n: 3 }, occurred_at: twoMinutesAgo } },
    ]);
    worker.start({ waitSeconds: 0 });
    await until(clock, () => delivered() === 3, 'three deliveries');
    // The same event again, once the queue's dedupe window is over: the ledger answers it.
    await clock.advance(301_000);
    await queue.publish({ envelope: { event_id: 'fast', type: 'invoice.paid', payload: { n: 1 } } });
    await until(clock, () => reports.some((r) => r.result === 'already-settled'), 'the repeat');
    await worker.close();

    const billing = { 'queueport.destination.id': 'billing' };
    expect(
      await otel.total('queueport.delivery.outcomes', {
        ...billing,
        'queueport.delivery.outcome': 'delivered',
        'http.response.status_code': 200,
      }),
    ).toBe(2);
    expect(
      await otel.total('queueport.delivery.outcomes', {
        ...billing,
        'queueport.delivery.outcome': 'retry',
        'http.response.status_code': 503,
      }),
    ).toBe(1);
    expect(
      await otel.total('queueport.delivery.outcomes', { 'queueport.destination.id': 'audit-sink' }),
    ).toBe(1);
    expect(await otel.total('queueport.delivery.attempt.duration', billing)).toBe(3);
    expect(await otel.total('queueport.ledger.claims', { 'queueport.claim.outcome': 'claimed' })).toBe(4);
    expect(
      await otel.total('queueport.ledger.claims', { 'queueport.claim.outcome': 'already-settled' }),
    ).toBe(1);
    expect(await otel.total('queueport.retries', { 'queueport.retry.kind': 'webhook' })).toBe(1);
    expect(
      await otel.total('queueport.delivery.objective', { ...billing, 'queueport.objective.met': true }),
    ).toBe(2);
    expect(
      await otel.total('queueport.delivery.objective', {
        'queueport.destination.id': 'audit-sink',
        'queueport.objective.met': false,
      }),
    ).toBe(1);
    const shares = await otel.metric('queueport.delivery.objective.share');
    expect(
      Object.fromEntries(shares.map((p) => [p.attributes['queueport.destination.id'], p.value])),
    ).toEqual({
      billing: 1,
      'audit-sink': 0,
    });
    // The worker's results land on the delivery's process span.
    const processed = otel.spans().filter((s) => s.name === 'process memory');
    expect(processed.map((s) => s.attributes['queueport.delivery.result']).sort()).toEqual([
      'already-settled',
      'delivered',
      'delivered',
      'delivered',
      'retry-scheduled',
    ]);

    stop();
    await queue.close();
    await sender.close();
    await receiver.close();
    await dispose();
  });
});
