import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256Hex } from '@queueport/core';
import { Webhook } from 'standardwebhooks';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from '../idempotency-key';
import { assertSigningSecret } from '../signing/signing-secret';
import { type BusinessIdentity, businessIdentity } from './business-identity';
import { IdempotencyStore } from './idempotency-store';

/**
 * One business transition the receiver performed: what tests count, not requests. It is named by
 * the business identity in the posted body (the envelope's `event_id` and payload digest), kept
 * apart from the key the receiver deduplicated on, so a sender that changes its key between
 * attempts shows up as two effects of one event.
 */
export interface Effect {
  /**
   * The envelope's `event_id` read from the body; the webhook-id (else Idempotency-Key) only
   * for a body that is no envelope.
   */
  eventId: string;
  /** Where `eventId` and `payloadSha256` were read: `body` (an envelope) or `headers`. */
  identity: 'body' | 'headers';
  /** The business payload's digest (see `BusinessIdentity`); the body's SHA-256 for other bodies. */
  payloadSha256: string;
  /**
   * What this request was deduplicated on: the signed `webhook-id` when the receiver verifies
   * signatures, else the Idempotency-Key; undefined in ignores-key mode.
   */
  dedupeKey: string | undefined;
  /**
   * The Idempotency-Key as read (bare or unquoted sf-string); undefined without one, and for a
   * malformed one on a signed request (unsigned, that is answered 400).
   */
  key: string | undefined;
  /** The `webhook-id` header as sent, signed or not. */
  webhookId: string | undefined;
  bodySha256: string;
  /** Unix ms. */
  at: number;
}

export interface RespondContext {
  /** The business event id (the envelope's `event_id` in the body, else the header id). */
  eventId: string;
  /** 1 for the first request carrying this business event id, counting every request (replays too). */
  attempt: number;
  body: string;
  /** What the request is deduplicated on (see `Effect.dedupeKey`). */
  dedupeKey: string | undefined;
}

export interface ReferenceReceiverOptions {
  host?: string;
  port?: number;
  /**
   * `idempotent`: one effect per key, replays, 409 / 422. The key is the signed `webhook-id`
   * when `secrets` are given (an unsigned Idempotency-Key could be changed in transit), else the
   * Idempotency-Key.
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
  /** The effects of one business event id (read from the body, whatever keys the requests carried). */
  effectsFor(eventId: string): Effect[];
  /** How many effects one business event id had. */
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
  const effectsPerEvent = new Map<string, Effect[]>();
  const attempts = new Map<string, number>();
  let requests = 0;
  let connections = 0;

  const perform = async (request: ReadRequest, dedupeKey: string | undefined): Promise<number> => {
    const { identity, body } = request;
    const attempt = (attempts.get(identity.eventId) ?? 0) + 1;
    attempts.set(identity.eventId, attempt);
    if (options.processingDelayMs)
      await new Promise((resolve) => setTimeout(resolve, options.processingDelayMs));
    let status: number;
    try {
      status = options.respond
        ? await options.respond({ eventId: identity.eventId, attempt, body, dedupeKey })
        : 200;
    } catch {
      status = 500;
    }
    if (status >= 200 && status < 300) {
      const effect: Effect = {
        eventId: identity.eventId,
        identity: identity.source,
        payloadSha256: identity.payloadSha256,
        dedupeKey,
        key: request.key,
        webhookId: request.webhookId,
        bodySha256: sha256Hex(body),
        at: now(),
      };
      effects.push(effect);
      const perEvent = effectsPerEvent.get(identity.eventId);
      if (perEvent) perEvent.push(effect);
      else effectsPerEvent.set(identity.eventId, [effect]);
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
    const signed = verifiers !== undefined;
    if (verifiers && !verifiers.some((verifier) => verifies(verifier, body, headers))) {
      return reply(res, 401, { error: 'invalid signature' });
    }
    const rawKey = headers[IDEMPOTENCY_KEY_HEADER];
    const key = rawKey === undefined ? undefined : parseIdempotencyKey(rawKey);
    // Unsigned, the key is what the receiver goes by, so a malformed one is refused. Signed, it
    // is not trusted for anything (webhook-id is), so it is only recorded.
    if (!signed && rawKey !== undefined && key === undefined)
      return reply(res, 400, { error: 'malformed Idempotency-Key' });
    const webhookId = headers['webhook-id'];
    const request: ReadRequest = {
      body,
      key,
      webhookId,
      identity: businessIdentity(body, webhookId ?? key),
    };
    const eventId = request.identity.eventId;

    if (options.mode === 'ignores-key') {
      const status = await perform(request, undefined);
      return reply(res, status, { received: eventId });
    }
    // Verified, the signed webhook-id is the key: the Idempotency-Key header is not covered by
    // the signature, so changing it must not make a request new. Unsigned, the draft's 400: an
    // idempotent endpoint requires the key.
    const dedupeKey = signed ? webhookId : key;
    if (dedupeKey === undefined) return reply(res, 400, { error: 'Idempotency-Key header is required' });
    const decision = store.begin(dedupeKey, sha256Hex(body));
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
      status = await perform(request, dedupeKey);
    } finally {
      store.finish(dedupeKey, status, answer);
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
    effectsFor: (eventId) => (effectsPerEvent.get(eventId) ?? []).map((effect) => ({ ...effect })),
    effectCount: (eventId) => effectsPerEvent.get(eventId)?.length ?? 0,
    effectTotal: () => effects.length,
    requests: () => requests,
    connections: () => connections,
  };
}

/** One request as read: its body, the keys it carried, and the business transition it names. */
interface ReadRequest {
  body: string;
  key: string | undefined;
  webhookId: string | undefined;
  identity: BusinessIdentity;
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
