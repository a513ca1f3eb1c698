import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256Hex } from '@queueport/core';
import { Webhook } from 'standardwebhooks';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from '../idempotency-key';
import { assertSigningSecret } from '../signing/signing-secret';
import { IdempotencyStore } from './idempotency-store';

/** One business transition the receiver performed: what tests count, not requests. */
export interface Effect {
  eventId: string;
  /** The Idempotency-Key as read (bare or unquoted sf-string); undefined in ignores-key mode without one. */
  key: string | undefined;
  bodySha256: string;
  /** Unix ms. */
  at: number;
}

export interface RespondContext {
  eventId: string;
  /** 1 for the first request carrying this event id, counting every request (replays too). */
  attempt: number;
  body: string;
}

export interface ReferenceReceiverOptions {
  host?: string;
  port?: number;
  /**
   * `idempotent`: honours Idempotency-Key (one effect per key, replays, 409 / 422).
   * `ignores-key`: every 2xx answer is a new effect, like a receiver that never deduplicates.
   */
  mode: 'idempotent' | 'ignores-key';
  /** When given, requests must carry a valid Standard Webhooks signature for one of them (else 401). */
  secrets?: readonly string[];
  /** The status to answer when a request is processed. Default 200. */
  respond?: (ctx: RespondContext) => number | Promise<number>;
  /** How long processing takes, so tests can overlap requests (e.g. to see a 409). */
  processingDelayMs?: number;
  /** Bodies above this size are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  now?: () => number;
}

export interface ReferenceReceiver {
  /** `http://host:port/`; post anywhere below it. */
  url: string;
  close(): Promise<void>;
  effects(): Effect[];
  effectCount(eventId: string): number;
  /** All effects so far; cheap enough to poll while waiting for a run to finish. */
  effectTotal(): number;
  /** HTTP requests received, refused ones included. */
  requests(): number;
  /** TCP connections accepted: 0 proves a sender refused before connecting. */
  connections(): number;
}

/**
 * A small receiver for tests and examples, idempotent the way the IETF draft and Stripe
 * describe. Answers that are not 2xx are not stored: a failed attempt leaves no effect and
 * frees the key, so the sender's retry with the same key is processed afresh. Caching a 503
 * as final would turn one transient failure into a permanent one.
 */
export async function startReferenceReceiver(options: ReferenceReceiverOptions): Promise<ReferenceReceiver> {
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  options.secrets?.forEach((secret, i) => {
    assertSigningSecret(secret, i + 1);
  });
  const verifiers = options.secrets?.map((secret) => new Webhook(secret));
  const store = new IdempotencyStore();
  const effects: Effect[] = [];
  const effectsPerEvent = new Map<string, number>();
  const attempts = new Map<string, number>();
  let requests = 0;
  let connections = 0;

  const perform = async (eventId: string, key: string | undefined, body: string): Promise<number> => {
    const attempt = (attempts.get(eventId) ?? 0) + 1;
    attempts.set(eventId, attempt);
    if (options.processingDelayMs)
      await new Promise((resolve) => setTimeout(resolve, options.processingDelayMs));
    let status: number;
    try {
      status = options.respond ? await options.respond({ eventId, attempt, body }) : 200;
    } catch {
      status = 500;
    }
    if (status >= 200 && status < 300) {
      effects.push({ eventId, key, bodySha256: sha256Hex(body), at: now() });
      effectsPerEvent.set(eventId, (effectsPerEvent.get(eventId) ?? 0) + 1);
    }
    return status;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    requests++;
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' });
    const body = await readBody(req, maxBodyBytes);
    if (body === undefined) {
      // The rest of the body is never read, so this connection cannot be reused.
      res.setHeader('connection', 'close');
      return reply(res, 413, { error: 'body too large' });
    }

    const headers = flatHeaders(req);
    if (verifiers && !verifiers.some((verifier) => verifies(verifier, body, headers))) {
      return reply(res, 401, { error: 'invalid signature' });
    }
    const rawKey = headers[IDEMPOTENCY_KEY_HEADER];
    const key = rawKey === undefined ? undefined : parseIdempotencyKey(rawKey);
    if (rawKey !== undefined && key === undefined)
      return reply(res, 400, { error: 'malformed Idempotency-Key' });
    const eventId = headers['webhook-id'] ?? key ?? '';

    if (options.mode === 'ignores-key') {
      const status = await perform(eventId, key, body);
      return reply(res, status, { received: eventId });
    }
    // The draft's 400: an idempotent endpoint requires the key.
    if (key === undefined) return reply(res, 400, { error: 'Idempotency-Key header is required' });
    const decision = store.begin(key, sha256Hex(body));
    if (decision.action === 'conflict') {
      // Neither is stored: they describe this request, not the key's result.
      return reply(res, decision.status, { error: decision.reason });
    }
    if (decision.action === 'replay') {
      res.setHeader('idempotent-replayed', 'true');
      return replyRaw(res, decision.status, decision.body);
    }
    let status = 500;
    const answer = JSON.stringify({ received: eventId });
    try {
      status = await perform(eventId, key, body);
    } finally {
      store.finish(key, status, answer);
    }
    return replyRaw(res, status, answer);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, { error: 'receiver failure' });
      else res.destroy();
    });
  });
  server.on('connection', () => {
    connections++;
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would otherwise hold close() open for seconds.
        server.closeAllConnections();
      }),
    effects: () => effects.map((effect) => ({ ...effect })),
    effectCount: (eventId) => effectsPerEvent.get(eventId) ?? 0,
    effectTotal: () => effects.length,
    requests: () => requests,
    connections: () => connections,
  };
}

function verifies(verifier: Webhook, body: string, headers: Record<string, string>): boolean {
  try {
    verifier.verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  replyRaw(res, status, JSON.stringify(body));
}

function replyRaw(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
