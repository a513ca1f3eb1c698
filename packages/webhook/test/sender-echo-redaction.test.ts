import { Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWebhookSender,
  type DeliveryOutcome,
  type DeliveryReport,
  DeliveryWorker,
  type Destination,
  type WebhookSender,
  type WebhookSenderOptions,
} from '../src';
import { destination, LOOPBACK_SSRF, newSecret } from './helpers/fixtures';
import { answer, type RecordedRequest, startServer, type TestServer } from './helpers/http-servers';

const servers: TestServer[] = [];
const senders: WebhookSender[] = [];

afterEach(async () => {
  await Promise.all(senders.splice(0).map((sender) => sender.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function sender(options: WebhookSenderOptions = {}): WebhookSender {
  const created = createWebhookSender({ ...options, ssrf: LOOPBACK_SSRF });
  senders.push(created);
  return created;
}

/** A receiver that fails with a 500 whose body is `echo(request)`: what a hostile one sends back. */
async function echoing(echo: (request: RecordedRequest) => string): Promise<TestServer> {
  const started = await startServer((request, res) => answer(res, 500, {}, echo(request)));
  servers.push(started);
  return started;
}

function sampleOf(outcome: DeliveryOutcome): string {
  if (!outcome.response) throw new Error(`no response sample in ${JSON.stringify(outcome)}`);
  return outcome.response.body;
}

const html = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const send = (s: WebhookSender, dest: Destination) =>
  s.send({ destination: dest, eventId: 'evt_echo', body: '{"amount":4200}' });

describe('response samples never carry a configured value a receiver echoes back', () => {
  it('a token in the URL path, echoed as the request line', async () => {
    const token = 'T0K3NxPathSegment9f2c41ab';
    const target = await echoing((request) => `Cannot POST ${request.path}`);
    const sample = sampleOf(await send(sender(), destination(`${target.url}/services/${token}`)));
    expect(target.received[0]?.path).toContain(token);
    expect(sample).not.toContain(token);
    expect(sample).toContain('/hook/services/');
    expect(sample).toContain('[REDACTED]');
  });

  it('a ?sig= value, echoed raw and percent-encoded', async () => {
    const sig = 'a1B2c3D4e5F6g7H8';
    const target = await echoing(
      (request) => `${request.path} ${encodeURIComponent(`sig=${sig}`)} sig%3D${encodeURIComponent(sig)}`,
    );
    const sample = sampleOf(await send(sender(), destination(`${target.url}?sig=${sig}&format=json`)));
    expect(sample).not.toContain(sig);
    // Not a credential, and plain: left for the diagnosis.
    expect(sample).toContain('format=json');
  });

  it('an Authorization header, echoed HTML-escaped, and its bearer token base64-encoded', async () => {
    const token = 'tok_<live>&"quoted"_8c1f';
    const authorization = `Bearer ${token}`;
    const target = await echoing(
      (request) =>
        `<p>${html(String(request.headers.authorization))}</p><i>${Buffer.from(token).toString('base64')}</i>`,
    );
    const sample = sampleOf(await send(sender(), destination(target.url, { headers: { authorization } })));
    expect(target.received[0]?.headers.authorization).toBe(authorization);
    expect(sample).not.toContain(html(token));
    expect(sample).not.toContain(Buffer.from(token).toString('base64'));
    expect(sample).toContain('<p>');
  });

  it('a Basic credential, echoed decoded', async () => {
    const password = 'p4ssW0rd-basic-77';
    const basic = `Basic ${Buffer.from(`hooks:${password}`).toString('base64')}`;
    const target = await echoing((request) => {
      const encoded = String(request.headers.authorization).slice('Basic '.length);
      return `you sent ${Buffer.from(encoded, 'base64').toString('utf8')} here`;
    });
    const sample = sampleOf(
      await send(sender(), destination(target.url, { headers: { authorization: basic } })),
    );
    expect(sample).not.toContain(password);
  });

  it('a signing secret, echoed base64url-encoded', async () => {
    const secret = newSecret();
    const target = await echoing(() => `key=${Buffer.from(secret).toString('base64url')}`);
    const sample = sampleOf(await send(sender(), destination(target.url, { secrets: [secret] })));
    expect(sample).not.toContain(Buffer.from(secret).toString('base64url'));
  });

  it('a header value cut in half by the response cap', async () => {
    const token = 'cutInHalfToken-0123456789abcdef';
    const target = await echoing(() => `${'x'.repeat(80)}${token}${'y'.repeat(100)}`);
    const outcome = await send(
      sender({ maxResponseBytes: 100 }),
      destination(target.url, { headers: { 'x-api-key': token } }),
    );
    expect(outcome.response?.truncated).toBe(true);
    const sample = sampleOf(outcome);
    expect(sample).not.toContain(token.slice(0, 20));
    expect(sample.endsWith('[REDACTED]')).toBe(true);
  });

  it('the sample in a worker report is the redacted one', async () => {
    const token = 'W0rkerReportPathToken-5501';
    const target = await echoing((request) => `no route for ${request.path}`);
    const clock = new VirtualClock();
    const queue = new Queue(new MemoryDriver({ clock }), { clock });
    const { ledger, dispose } = await temporarySqliteLedger(clock);
    const reports: DeliveryReport[] = [];
    try {
      const worker = new DeliveryWorker({
        queue,
        ledger,
        sender: sender(),
        clock,
        route: () => destination(`${target.url}/${token}`),
        onReport: (report) => reports.push(report),
      });
      await queue.publish({ envelope: { event_id: 'evt_report', type: 'payment.settled', payload: {} } });
      const [delivery] = await queue.receive({ leaseSeconds: 30 });
      await worker.process(delivery!);
      expect(reports).toHaveLength(1);
      expect(JSON.stringify(reports[0])).not.toContain(token);
      expect(reports[0]?.outcome?.response?.body).toContain('[REDACTED]');
      expect(JSON.stringify(await ledger.get('evt_report'))).not.toContain(token);
    } finally {
      await queue.close();
      await dispose();
    }
  });
});
