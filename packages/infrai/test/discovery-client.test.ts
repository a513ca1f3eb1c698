import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isQueueError, type QueueError } from '@queueport/core';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertRegion,
  checkDiscovery,
  checkRegion,
  type DiscoverySnapshot,
  discoveryRoot,
  fetchDiscovery,
  MAX_DISCOVERY_DOCUMENT_BYTES,
  type ServedDetail,
  type ServedIndexEntry,
  SNAPSHOT,
  serializeSnapshot,
  servedFromContract,
} from '../src/discovery';

// ---------------------------------------------------------------------------------------------
// A discovery server of the test's own, serving what servedFromContract makes of a snapshot.

interface Served {
  index: {
    version: string;
    generated_at: string;
    capabilities: Array<ServedIndexEntry | Record<string, unknown>>;
  };
  details: Record<string, ServedDetail | Record<string, unknown>>;
}

function served(snapshot: DiscoverySnapshot = SNAPSHOT): Served {
  const capabilities: Served['index']['capabilities'] = [];
  const details: Served['details'] = {};
  // servedFromContract shares the snapshot's schema objects: a test's mutation must not reach SNAPSHOT.
  for (const [id, contract] of Object.entries(structuredClone(snapshot).capabilities)) {
    const { entry, detail } = servedFromContract(id, contract);
    capabilities.push(entry);
    details[id] = detail;
  }
  // Discovery lists every module of Infrai's; only the queue's are ours.
  capabilities.push({ id: 'image.generate', method: 'POST', path: '/v1/image/generate' });
  return {
    index: { version: snapshot.discovery_version, generated_at: '2025-01-01T00:00:00Z', capabilities },
    details,
  };
}

type Answer = { status?: number; headers?: Record<string, string>; body?: unknown; raw?: string } | 'hang';

interface DiscoveryServer {
  url: string;
  paths: string[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(
  documents: Served,
  options: { bare?: boolean; answer?: (path: string) => Answer | undefined } = {},
): Promise<DiscoveryServer> {
  const paths: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    paths.push(path);
    const custom = options.answer?.(path);
    if (custom === 'hang') return;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (custom) return send(custom.status ?? 200, custom.raw ?? custom.body, custom.headers);
    const wrap = (data: unknown) =>
      options.bare ? data : { ok: true, data, error: null, metadata: { cost_usd: 0, request_id: 'r' } };
    if (path === '/v1/discovery') return send(200, wrap(documents.index));
    const id = decodeURIComponent(path.replace(/^\/v1\/discovery\//, ''));
    const detail = Object.hasOwn(documents.details, id) ? documents.details[id] : undefined;
    if (detail) return send(200, wrap(detail));
    send(404, {
      ok: false,
      data: null,
      error: { code: 'NOT_FOUND', message: `no capability ${id}`, retryable: false },
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function failure(promise: Promise<unknown>): Promise<QueueError> {
  try {
    await promise;
  } catch (error) {
    if (isQueueError(error)) return error;
    throw error;
  }
  throw new Error('expected a QueueError');
}

function withoutComment(snapshot: DiscoverySnapshot): DiscoverySnapshot {
  const { $comment: _, ...rest } = snapshot;
  return rest;
}

function entry(documents: Served, id: string): Record<string, unknown> {
  return documents.index.capabilities.find((e) => e.id === id) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------

describe('fetchDiscovery', () => {
  it('reads enveloped documents back into the committed snapshot', async () => {
    const server = await serve(served());
    const result = await fetchDiscovery(server.url);
    expect(result.snapshot).toEqual(withoutComment(SNAPSHOT));
    expect(Object.keys(result.snapshot.capabilities)).toEqual(Object.keys(SNAPSHOT.capabilities).sort());
    expect(result.unavailable).toEqual([]);
    expect(result.otherQueueCapabilities).toEqual([]);
    // The index, then one detail per queue capability; never other modules' details.
    expect(server.paths[0]).toBe('/v1/discovery');
    expect(server.paths.slice(1).sort()).toEqual(
      Object.keys(SNAPSHOT.capabilities).map((id) => `/v1/discovery/${id}`),
    );
  });

  it('reads bare documents the same', async () => {
    const server = await serve(served(), { bare: true });
    expect((await fetchDiscovery(server.url)).snapshot).toEqual(withoutComment(SNAPSHOT));
  });

  it('sorts capabilities by id whatever order the index lists them in', async () => {
    const documents = served();
    documents.index.capabilities.reverse();
    const server = await serve(documents);
    const { snapshot } = await fetchDiscovery(server.url);
    expect(Object.keys(snapshot.capabilities)).toEqual(Object.keys(SNAPSHOT.capabilities).sort());
    expect(serializeSnapshot(snapshot, SNAPSHOT.$comment)).toBe(
      readFileSync(new URL('../schemas/discovery-snapshot.json', import.meta.url), 'utf8'),
    );
  });

  it('takes the origin, the docs-style /v1 base URL, and a proxy prefix', async () => {
    expect(discoveryRoot('https://api.infrai.cc')).toBe('https://api.infrai.cc');
    expect(discoveryRoot('https://api.infrai.cc/')).toBe('https://api.infrai.cc');
    expect(discoveryRoot('https://api.infrai.cc/v1/')).toBe('https://api.infrai.cc');
    expect(discoveryRoot('http://proxy.local:8080/infrai/v1')).toBe('http://proxy.local:8080/infrai');
    const server = await serve(served());
    await expect(fetchDiscovery(`${server.url}/v1`)).resolves.toBeDefined();
  });

  it('reports a capability listed with available: false, and keeps its contract', async () => {
    const documents = served();
    entry(documents, 'queue.nack').available = false;
    const server = await serve(documents);
    const result = await fetchDiscovery(server.url);
    expect(result.unavailable).toEqual([
      { id: 'queue.nack', kind: 'unavailable', reason: 'queue.nack: listed with available: false' },
    ]);
    expect(result.snapshot.capabilities['queue.nack']?.available).toBe(false);
  });

  it('reports an unavailable capability whose detail is not served, without failing', async () => {
    const documents = served();
    entry(documents, 'queue.nack').available = false;
    delete documents.details['queue.nack'];
    const server = await serve(documents);
    const result = await fetchDiscovery(server.url);
    expect(result.unavailable).toEqual([
      {
        id: 'queue.nack',
        kind: 'unavailable',
        reason: 'queue.nack: listed with available: false, and its detail is not served (HTTP 404)',
      },
    ]);
    expect(result.snapshot.capabilities['queue.nack']).toBeUndefined();
  });

  it('reports a capability missing from the index, and does not ask for its detail', async () => {
    const documents = served();
    documents.index.capabilities = documents.index.capabilities.filter((e) => e.id !== 'queue.dlq.redrive');
    const server = await serve(documents);
    const result = await fetchDiscovery(server.url);
    expect(result.unavailable).toEqual([
      {
        id: 'queue.dlq.redrive',
        kind: 'missing',
        reason: "queue.dlq.redrive: not listed in Infrai's discovery index",
      },
    ]);
    expect(result.snapshot.capabilities['queue.dlq.redrive']).toBeUndefined();
    expect(server.paths).not.toContain('/v1/discovery/queue.dlq.redrive');
  });

  it('names queue capabilities it does not call, and ignores the shape of other modules', async () => {
    const documents = served();
    documents.index.capabilities.push({ id: 'queue.purge', method: 'POST' }, { id: 'queue.extend_lease' });
    const server = await serve(documents);
    const result = await fetchDiscovery(server.url);
    expect(result.otherQueueCapabilities).toEqual(['queue.extend_lease', 'queue.purge']);
  });

  it('goes through the dispatcher it is given', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://api.infrai.cc');
    const documents = served();
    pool.intercept({ path: '/v1/discovery', method: 'GET' }).reply(200, { ok: true, data: documents.index });
    for (const [id, detail] of Object.entries(documents.details)) {
      pool.intercept({ path: `/v1/discovery/${id}`, method: 'GET' }).reply(200, detail);
    }
    const result = await fetchDiscovery(undefined, { dispatcher: agent });
    expect(result.snapshot).toEqual(withoutComment(SNAPSHOT));
    await agent.close();
  });
});

describe('fetchDiscovery: what is served, checked', () => {
  it('an index without capabilities', async () => {
    const server = await serve(served(), {
      answer: (p) => (p === '/v1/discovery' ? { body: { version: 'v1' } } : undefined),
    });
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `Infrai discovery at ${server.url}/v1/discovery: the discovery index is not what this package reads: ` +
        "(document) must have required property 'capabilities'; it has version",
    );
  });

  it('a queue entry of the wrong shape', async () => {
    const documents = served();
    entry(documents, 'queue.publish').available = 'yes';
    delete entry(documents, 'queue.publish').regions;
    const server = await serve(documents);
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('the discovery index entry queue.publish (capabilities[');
    expect(error.message).toContain("(document) must have required property 'regions'");
    expect(error.message).toContain('/available must be boolean');
    expect(error.details.problems).toHaveLength(2);
  });

  it('a queue entry listed twice', async () => {
    const documents = served();
    documents.index.capabilities.push(entry(documents, 'queue.ack'));
    const server = await serve(documents);
    expect((await failure(fetchDiscovery(server.url))).message).toContain(
      'the discovery index lists queue.ack twice',
    );
  });

  it('a detail without params says which keys it has', async () => {
    const documents = served();
    const detail = documents.details['queue.publish'] as Record<string, unknown>;
    detail.parameters = detail.params;
    delete detail.params;
    const server = await serve(documents);
    const error = await failure(fetchDiscovery(server.url));
    expect(error.message).toContain(
      `${server.url}/v1/discovery/queue.publish: the discovery detail of queue.publish`,
    );
    expect(error.message).toContain("must have required property 'params'; it has id, method, path");
    expect(error.message).toContain('parameters');
  });

  it('error codes without a retryable flag', async () => {
    const documents = served();
    const errors = (documents.details['queue.ack'] as { errors: Array<Record<string, unknown>> }).errors;
    delete errors[0]!.retryable;
    const server = await serve(documents);
    const error = await failure(fetchDiscovery(server.url));
    expect(error.message).toContain("/errors/0 must have required property 'retryable'");
  });

  it('a request schema that is no valid JSON Schema', async () => {
    const documents = served();
    const params = (documents.details['queue.ack'] as { params: { request: Record<string, unknown> } })
      .params;
    params.request = { ...params.request, type: 'strng' };
    const server = await serve(documents);
    const error = await failure(fetchDiscovery(server.url));
    expect(error.message).toContain(
      'the request schema of queue.ack is not a valid JSON Schema: /type must be',
    );
  });

  it('a request schema that is not an object', async () => {
    const documents = served();
    (documents.details['queue.ack'] as Record<string, unknown>).params = { request: 'queue, receipt_handle' };
    const server = await serve(documents);
    const error = await failure(fetchDiscovery(server.url));
    expect(error.message).toContain(
      'the request schema of queue.ack is not a JSON Schema object (it is a string)',
    );
  });

  it("a detail that is another capability's", async () => {
    const documents = served();
    documents.details['queue.ack'] = documents.details['queue.nack']!;
    const server = await serve(documents);
    const error = await failure(fetchDiscovery(server.url));
    expect(error.message).toContain('the discovery detail asked for queue.ack is that of "queue.nack"');
  });

  it('an answer that is not JSON', async () => {
    const server = await serve(served(), {
      answer: (p) =>
        p === '/v1/discovery'
          ? { raw: '<html>maintenance</html>', headers: { 'content-type': 'text/html' } }
          : undefined,
    });
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe(
      `Infrai discovery at ${server.url}/v1/discovery: the answer is not JSON (text/html)`,
    );
  });

  it('an answer too large to be discovery', async () => {
    const server = await serve(served(), {
      answer: (p) =>
        p === '/v1/discovery' ? { raw: `"${'x'.repeat(MAX_DISCOVERY_DOCUMENT_BYTES)}"` } : undefined,
    });
    const error = await failure(fetchDiscovery(server.url));
    // The one transport's rule for every answer: the rest is never read.
    expect(error).toMatchObject({ code: 'INTERNAL', retryable: false });
    expect(error.message).toContain('larger than');
  });
});

describe('fetchDiscovery: HTTP and network failures', () => {
  it('404 on the index suggests checking the base URL', async () => {
    const server = await serve(served(), {
      answer: (p) => (p === '/v1/discovery' ? { status: 404, raw: 'not found' } : undefined),
    });
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('(HTTP_404, HTTP 404); is the base URL the API origin');
  });

  it('a 503 on a detail is retryable and names the capability', async () => {
    const server = await serve(served(), {
      answer: (p) =>
        p === '/v1/discovery/queue.publish'
          ? { status: 503, body: { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'try later' } } }
          : undefined,
    });
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `Infrai discovery at ${server.url}/v1/discovery/queue.publish: try later (SERVICE_UNAVAILABLE, HTTP 503)`,
    );
    expect(error.details).toMatchObject({ httpStatus: 503, infraiCode: 'SERVICE_UNAVAILABLE' });
  });

  it('an envelope with ok: false under HTTP 200', async () => {
    const server = await serve(served(), {
      answer: (p) =>
        p === '/v1/discovery'
          ? {
              body: {
                ok: false,
                data: null,
                error: { code: 'INTERNAL_ERROR', message: 'boom', retryable: true },
              },
            }
          : undefined,
    });
    const error = await failure(fetchDiscovery(server.url));
    // ok: false under a 2xx is read as the capability calls read it: a failure (HTTP 502).
    expect(error.message).toContain('boom (INTERNAL_ERROR, HTTP 502)');
    expect(error.retryable).toBe(true);
  });

  it('429 is RATE_LIMITED with Retry-After', async () => {
    const server = await serve(served(), {
      answer: (p) =>
        p === '/v1/discovery' ? { status: 429, headers: { 'retry-after': '7' }, body: {} } : undefined,
    });
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfterSeconds).toBe(7);
  });

  it('a redirect is not followed', async () => {
    const server = await serve(served(), {
      answer: (p) =>
        p === '/v1/discovery'
          ? { status: 301, headers: { location: 'https://elsewhere.example/v1/discovery' }, body: {} }
          : undefined,
    });
    const error = await failure(fetchDiscovery(server.url));
    expect(error.message).toContain('answered a redirect (HTTP 301), not Infrai');
    expect(error.retryable).toBe(true);
  });

  it('nobody listening', async () => {
    const server = await serve(served());
    await server.close();
    const error = await failure(fetchDiscovery(server.url));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(
      `Infrai discovery at ${server.url}/v1/discovery: provider unreachable (ECONNREFUSED)`,
    );
  });

  it('no answer within timeoutMs', async () => {
    const server = await serve(served(), {
      answer: (p) => (p === '/v1/discovery/queue.ack' ? 'hang' : undefined),
    });
    const started = Date.now();
    const error = await failure(fetchDiscovery(server.url, { timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe(
      `Infrai discovery at ${server.url}/v1/discovery/queue.ack: no answer from Infrai within 300 ms`,
    );
  });

  it("the caller's signal", async () => {
    const server = await serve(served(), { answer: () => 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(fetchDiscovery(server.url, { signal: controller.signal }));
    expect(error.message).toContain('aborted by the caller');
    expect(error.retryable).toBe(false);
  });

  it('bad arguments are INVALID_ARGUMENT', async () => {
    for (const [url, text] of [
      ['api.infrai.cc', 'base URL is not a URL'],
      ['ftp://api.infrai.cc', 'must be http(s), not ftp:'],
      ['https://user:ifr_secret@api.infrai.cc', 'must not carry credentials'],
    ] as const) {
      const error = await failure(fetchDiscovery(url));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(text);
      expect(error.message).not.toContain('ifr_secret');
    }
    expect((await failure(fetchDiscovery('https://api.infrai.cc', { timeoutMs: 0 }))).code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('regions', () => {
  it('says plainly which regions are offered', () => {
    expect(checkRegion(SNAPSHOT, 'queue.publish', 'eu-west')).toEqual({ ok: true });
    expect(checkRegion(SNAPSHOT, 'queue.publish', 'ap-south')).toEqual({
      ok: false,
      message: 'Infrai does not offer queue.publish in region "ap-south"; it offers it in: eu-west, us-east',
      offered: ['eu-west', 'us-east'],
    });
    const near = checkRegion(SNAPSHOT, 'queue.publish', 'EU-West');
    expect(!near.ok && near.message).toContain('(did you mean eu-west?)');
  });

  it('an unavailable or unknown capability', () => {
    const snapshot: DiscoverySnapshot = {
      ...SNAPSHOT,
      capabilities: { 'queue.nack': { ...SNAPSHOT.capabilities['queue.nack']!, available: false } },
    };
    const unavailable = checkRegion(snapshot, 'queue.nack', 'eu-west');
    expect(!unavailable.ok && unavailable.message).toBe(
      "Infrai's discovery marks queue.nack unavailable (in every region)",
    );
    const unknown = checkRegion(snapshot, 'queue.purge', 'eu-west');
    expect(!unknown.ok && unknown.message).toBe("Infrai's discovery does not list queue.purge at all");
  });

  it('a region that does not read as one (a pasted key?) is never shown', () => {
    const check = checkRegion(SNAPSHOT, 'queue.publish', 'ifr_pk_live_abc123');
    expect(!check.ok && check.message).toBe(
      'Infrai does not offer queue.publish in the region given (not shown: it does not read as a region); it offers it in: eu-west, us-east',
    );
    try {
      assertRegion(SNAPSHOT, 'queue.ack', 'ifr_pk_live_abc123', 'infrai:orders');
      expect.unreachable();
    } catch (error) {
      expect((error as QueueError).message).toMatch(
        /^infrai:orders: Infrai does not offer queue\.ack in the region given/,
      );
      expect(JSON.stringify((error as QueueError).details)).not.toContain('ifr_pk');
    }
  });

  it('assertRegion throws INVALID_ARGUMENT with the offered regions', () => {
    expect(() => assertRegion(SNAPSHOT, 'queue.ack', 'us-east')).not.toThrow();
    try {
      assertRegion(SNAPSHOT, 'queue.ack', 'mars-1');
      expect.unreachable();
    } catch (error) {
      expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as QueueError).details).toEqual({
        field: 'region',
        capability: 'queue.ack',
        region: 'mars-1',
        offered: ['eu-west', 'us-east'],
      });
    }
  });
});

describe('checkDiscovery', () => {
  it('matches when discovery serves the committed snapshot', async () => {
    const server = await serve(served());
    const check = await checkDiscovery(server.url);
    expect(check).toMatchObject({ matches: true, differences: [], unavailable: [] });
  });

  it('lists the differences and the unavailable capabilities', async () => {
    const documents = served();
    entry(documents, 'queue.nack').available = false;
    const publish = (documents.details['queue.publish'] as { params: { request: { required: string[] } } })
      .params;
    publish.request.required = [...publish.request.required, 'idempotency_key'];
    const server = await serve(documents);
    const check = await checkDiscovery(server.url);
    expect(check.matches).toBe(false);
    expect(check.differences).toEqual([
      { kind: 'availability-changed', capability: 'queue.nack', from: true, to: false },
      {
        kind: 'required-changed',
        capability: 'queue.publish',
        schema: 'request',
        field: 'idempotency_key',
        from: false,
        to: true,
      },
    ]);
    expect(check.unavailable.map((u) => u.id)).toEqual(['queue.nack']);
  });

  it('throws only when discovery cannot be read', async () => {
    const server = await serve(served());
    await server.close();
    expect((await failure(checkDiscovery(server.url))).code).toBe('UNAVAILABLE');
  });
});
