import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { CreateQueueCommand, DeleteQueueCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { openQueue, type Queue } from '@queueport/core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createSqsAdapter, sqsAdapter } from '../src';
import { REGION, sqsEndpoint, sqsProviderUrl } from './support/sqs';

const freshName = (tag: string) => `qp-adp-${tag}-${randomUUID().slice(0, 8)}`;
const adapters = [sqsAdapter];

/** This process's open client sockets to `port`, from Node's own list: a leaked one has no other owner. */
function socketsTo(port: number): Socket[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is Socket => h instanceof Socket && !h.destroyed && h.remotePort === port);
}

/** `sqs://us-east-1/<name>?endpoint=…` for the test server, or for another endpoint. */
function queueUrlFor(name: string, endpoint = sqsEndpoint!, region: string | null = REGION): string {
  const url = new URL(`sqs://${region ?? ''}/${name}`);
  url.searchParams.set('endpoint', endpoint);
  return url.href;
}

if (!sqsEndpoint) {
  describe('sqsAdapter against an SQS server', () => {
    it.skip(`no SQS server: ${inject('queueportServices').sqsUnavailable ?? 'see the test services summary'}`, () => {});
  });
} else {
  const endpoint = sqsEndpoint;
  const client = new SQSClient({
    region: REGION,
    endpoint,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const closers: Array<() => Promise<unknown>> = [];
  const queueUrls: string[] = [];

  /**
   * A pass-through to the SQS server that notes each request's signing headers, so a test sees
   * which credentials and region a client the adapter made actually used.
   */
  let proxy: Server;
  let proxyEndpoint: string;
  let proxyPort: number;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    const target = new URL(endpoint);
    proxy = createServer((incoming, outgoing) => {
      seen.push(incoming.headers);
      const forward = request(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', () => outgoing.destroy());
      incoming.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
    proxyEndpoint = `http://127.0.0.1:${proxyPort}`;
  });

  afterEach(async () => {
    await Promise.allSettled(closers.splice(0).map((close) => close()));
    seen.length = 0;
  });

  afterAll(async () => {
    await Promise.allSettled(queueUrls.map((url) => client.send(new DeleteQueueCommand({ QueueUrl: url }))));
    client.destroy();
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
  });

  const createQueue = async (tag: string) => {
    const name = freshName(tag);
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name }));
    queueUrls.push(QueueUrl!);
    return name;
  };

  function track<T extends { close(): Promise<unknown> }>(closable: T): T {
    closers.push(() => closable.close());
    return closable;
  }

  async function roundTrip(queue: Queue, id: string) {
    const receipt = await queue.publish({
      envelope: { event_id: id, type: 'test.event', payload: { id } },
      attributes: { tenant: 'acme' },
    });
    const [delivery] = await queue.receive({ leaseSeconds: 10, waitSeconds: 1 });
    expect(delivery).toMatchObject({
      envelope: { event_id: id, payload: { id } },
      attributes: { tenant: 'acme' },
      receiveCount: 1,
      messageId: receipt.messageId,
    });
    await delivery!.ack();
    expect(await queue.receive({ waitSeconds: 0 })).toEqual([]);
  }

  describe('opening by URL', () => {
    it('opens a queue by URL: publish, receive and ack round trip', async () => {
      const name = await createQueue('url');
      const queue = track(await openQueue(queueUrlFor(name), { adapters, retry: { maxAttempts: 1 } }));
      expect(queue.name).toBe(`sqs:${name}`);
      expect(queue.capabilities.ordering).toBe('none');
      await roundTrip(queue, 'round-trip');
    });

    it('hands the URL options to the driver', async () => {
      const name = await createQueue('opts');
      const url = new URL(queueUrlFor(name));
      url.searchParams.set('nativeMaxDelaySeconds', '60');
      url.searchParams.set('maxBodyBytes', '65536');
      const driver = track(await sqsAdapter.open(url, {}));
      expect(driver.capabilities.delay.nativeMaxSeconds).toBe(60);
      expect(driver.capabilities.maxBodyBytes).toBe(65_536);
    });

    it('refuses a URL that names no queue', async () => {
      for (const url of [sqsProviderUrl(), `${sqsProviderUrl().replace('?', '/?')}`]) {
        await expect(openQueue(url, { adapters })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          details: { field: 'queueName' },
        });
      }
    });

    it('refuses to open a missing queue with NOT_FOUND, and leaves no socket behind', async () => {
      const name = freshName('missing');
      expect(socketsTo(proxyPort)).toEqual([]);
      await expect(openQueue(queueUrlFor(name, proxyEndpoint), { adapters })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      // The request went out through a client the adapter made, which it destroyed on the refusal.
      expect(seen.length).toBeGreaterThan(0);
      expect(socketsTo(proxyPort)).toEqual([]);
    });

    it('refuses options the queue cannot hold, and leaves no socket behind', async () => {
      const name = await createQueue('toobig');
      const url = new URL(queueUrlFor(name, proxyEndpoint));
      url.searchParams.set('maxBodyBytes', String(2 ** 21));
      await expect(sqsAdapter.open(url, {})).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'maxBodyBytes' },
      });
      expect(socketsTo(proxyPort)).toEqual([]);
    });

    it('destroys the client it made when the queue closes', async () => {
      const name = await createQueue('owned');
      const queue = await openQueue(queueUrlFor(name, proxyEndpoint), { adapters });
      // Keep-alive: the client holds its connection while the queue is open.
      expect(socketsTo(proxyPort).length).toBeGreaterThan(0);
      await queue.close();
      expect(socketsTo(proxyPort)).toEqual([]);
    });
  });

  describe('credentials and region from context.env', () => {
    it('signs with the keys and session token of the env it is given, not process.env', async () => {
      const name = await createQueue('env');
      expect(process.env.AWS_ACCESS_KEY_ID).not.toBe('AKIAENVONLYEXAMPLE');
      const queue = track(
        await openQueue(queueUrlFor(name, proxyEndpoint), {
          adapters,
          retry: { maxAttempts: 1 },
          env: {
            AWS_ACCESS_KEY_ID: 'AKIAENVONLYEXAMPLE',
            AWS_SECRET_ACCESS_KEY: 'env-secret',
            AWS_SESSION_TOKEN: 'env-session-token',
          },
        }),
      );
      await roundTrip(queue, 'env-keys');
      expect(seen.length).toBeGreaterThan(0);
      for (const headers of seen) {
        expect(headers.authorization).toContain(`Credential=AKIAENVONLYEXAMPLE/`);
        expect(headers.authorization).toContain(`/${REGION}/sqs/aws4_request`);
        expect(headers['x-amz-security-token']).toBe('env-session-token');
      }
    });

    it("takes the region from the env's AWS_REGION when the URL names none, and refuses without one", async () => {
      const name = await createQueue('region');
      const url = queueUrlFor(name, proxyEndpoint, null);
      expect(new URL(url).hostname).toBe('');
      const driver = track(
        await sqsAdapter.open(new URL(url), {
          env: { AWS_REGION: REGION, AWS_ACCESS_KEY_ID: 'AKIAREGIONEXAMPLE', AWS_SECRET_ACCESS_KEY: 's' },
        }),
      );
      expect(driver.name).toBe(`sqs:${name}`);
      expect(seen.at(-1)!.authorization).toContain(`AKIAREGIONEXAMPLE/`);
      expect(seen.at(-1)!.authorization).toContain(`/${REGION}/sqs/aws4_request`);
      await expect(sqsAdapter.open(new URL(url), { env: {} })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'region' },
      });
    });
  });

  describe('createSqsAdapter({ client })', () => {
    it("uses the caller's client for every URL and never destroys it", async () => {
      const own = new SQSClient({
        region: REGION,
        endpoint,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      const destroy = vi.spyOn(own, 'destroy');
      try {
        const adapter = createSqsAdapter({ client: own });
        const name = await createQueue('own');
        // The URL's region and endpoint lead nowhere: only the caller's client can reach the queue.
        const nowhere = queueUrlFor(name, 'http://127.0.0.1:1', 'eu-west-3');
        const queue = await openQueue(nowhere, { adapters: [adapter], retry: { maxAttempts: 1 } });
        await roundTrip(queue, 'own-client');
        await queue.close();
        // A refused open, and an admin closed, leave it alone too.
        await expect(
          openQueue(queueUrlFor(freshName('nope'), 'http://127.0.0.1:1'), { adapters: [adapter] }),
        ).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
        const admin = await adapter.admin!(new URL(sqsProviderUrl()), {});
        expect((await admin.stats(queueUrlFor(name))).depth).toBe(0);
        await admin.close();
        expect(destroy).not.toHaveBeenCalled();
        await expect(own.send(new ListQueuesCommand({}))).resolves.toBeDefined();
      } finally {
        destroy.mockRestore();
        own.destroy();
      }
    });
  });
}
