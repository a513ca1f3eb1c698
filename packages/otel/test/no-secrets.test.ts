import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender, type DeliveryReport, DeliveryWorker } from '@queueport/webhook';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { describe, expect, it } from 'vitest';
import { instrumentWorker, observeQueueStats, otelTelemetry } from '../src';
import { otelHarness } from './otel-harness';
import { LEDGER_STORES, until } from './worker-world';

const SIGNING_KEY = 'PLANTED-SIGNING-KEY-7f3a9c';
const SIGNING_SECRET = `whsec_${Buffer.from(SIGNING_KEY).toString('base64')}`;
const API_KEY = 'PLANTED-API-KEY-b81d44e0';
const AUTH_TOKEN = 'PLANTED-AUTH-TOKEN-55c2e1';
const PAYLOAD_MARKER = 'PLANTED-PAYLOAD-MARKER-93aa';
const PLANTED = [SIGNING_SECRET, SIGNING_KEY, API_KEY, AUTH_TOKEN, PAYLOAD_MARKER, 'api_key=', 'Bearer'];

/** Every string a span shows an exporter: its name, attributes, events, links and status message. */
function spanTexts(span: ReturnType<ReturnType<typeof otelHarness>['spans']>[number]): string[] {
  const attributes = (record: Record<string, unknown> | undefined) =>
    Object.entries(record ?? {}).flatMap(([key, value]) => [key, String(value)]);
  return [
    span.name,
    ...attributes(span.attributes),
    ...span.events.flatMap((event) => [event.name, ...attributes(event.attributes)]),
    ...span.links.flatMap((link) => attributes(link.attributes)),
    span.status.message ?? '',
  ];
}

describe('no payload and no secret in a span, a metric attribute or a log line', () => {
  it('a full run with planted secrets and payload markers leaves none of them behind', async () => {
    const otel = otelHarness();
    const clock = new VirtualClock();
    const { ledger, dispose } = await LEDGER_STORES[0]!.open(clock);
    const answers = new Map<string, number[]>([['retried', [503]]]);
    const receiver = await startReferenceReceiver({
      mode: 'idempotent',
      secrets: [SIGNING_SECRET],
      respond: ({ eventId }) => answers.get(eventId)?.shift() ?? (eventId === 'gone' ? 410 : 200),
    });
    const sender = createWebhookSender({
      ssrf: { allowHttp: true, allowLoopback: true },
      requestTimeoutMs: 5_000,
    });
    const logLines: string[] = [];
    const logger = { warn: (line: string) => void logLines.push(line) };
    const driver = new MemoryDriver({ clock });
    const queue = new Queue(driver, {
      clock,
      logger,
      telemetry: otelTelemetry({ meterProvider: otel.meterProvider, tracerProvider: otel.tracerProvider }),
    });
    const worker = new DeliveryWorker({
      queue,
      ledger,
      sender,
      clock,
      logger,
      route: (envelope) => ({
        id: envelope.event_id === 'gone' ? 'retired-endpoint' : 'acme-billing',
        url: `${receiver.url}hooks?api_key=${API_KEY}`,
        secrets: [SIGNING_SECRET],
        headers: { Authorization: `Bearer ${AUTH_TOKEN}` },
      }),
    });
    instrumentWorker(worker, { meterProvider: otel.meterProvider, objectiveMs: 60_000, clock });
    const stopStats = observeQueueStats({
      admin: { stats: async () => driver.stats() },
      url: `memory://orders?token=${API_KEY}`,
      name: 'orders',
      meterProvider: otel.meterProvider,
    });
    const reports: DeliveryReport[] = [];
    worker.on('report', (report) => void reports.push(report));

    const payload = { note: PAYLOAD_MARKER, card: { holder: PAYLOAD_MARKER } };
    await queue.publishBatch(
      ['ok', 'retried', 'gone'].map((id) => ({
        envelope: { event_id: id, type: 'invoice.paid', payload },
        attributes: { note: PAYLOAD_MARKER },
      })),
    );
    // A body that is no envelope, with the marker in it: refused, and logged since nothing listens.
    await driver.publish([
      {
        eventId: 'junk',
        dedupeKey: 'junk',
        body: `{"junk":"${PAYLOAD_MARKER}"}`,
        attributes: {},
        delaySeconds: 0,
      },
    ]);
    worker.start({ waitSeconds: 0 });
    await until(
      clock,
      // The 410 disables its destination, and its event is parked in the ledger.
      () => reports.filter((r) => r.result === 'delivered' || r.result === 'parked').length === 3,
      'the run',
    );
    await worker.close();
    await queue.close();

    // The run reached every kind of output: spans, metrics with destinations, and a log line.
    const spans = otel.spans();
    const points = await otel.points();
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['send memory', 'receive memory', 'process memory']),
    );
    expect(points.some((p) => p.attributes['queueport.destination.id'] === 'acme-billing')).toBe(true);
    expect(points.some((p) => p.name === 'queueport.queue.depth')).toBe(true);
    expect(reports.map((r) => r.outcome?.kind)).toEqual(
      expect.arrayContaining(['retry', 'delivered', 'disable']),
    );
    expect(logLines.length).toBeGreaterThan(0);

    const texts = [
      ...spans.flatMap(spanTexts),
      ...points.flatMap((p) => [p.name, ...Object.entries(p.attributes).flatMap(([k, v]) => [k, String(v)])]),
      ...logLines,
    ];
    for (const planted of PLANTED) {
      expect(
        texts.filter((text) => text.includes(planted)),
        planted,
      ).toEqual([]);
    }

    stopStats();
    await sender.close();
    await receiver.close();
    await dispose();
    await otel.close();
  });
});
