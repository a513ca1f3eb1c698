import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How a hostile server answers one request; the request's body has been read already. */
export type HostileHandler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

export interface HostileServer {
  readonly url: string;
  /** Answers every request but `GET /v1/queue/list`, which names the queue so a driver opens. */
  handle(handler: HostileHandler): void;
  /** Requests seen, after the queue list. */
  readonly seen: Array<{ method: string; path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** The one queue a driver against a hostile server opens. */
export const HOSTILE_QUEUE = 'orders';

export function queueListAnswer(): string {
  return JSON.stringify({
    ok: true,
    data: {
      queues: [
        {
          name: HOSTILE_QUEUE,
          type: 'standard',
          dead_letter_queue: null,
          max_retries: 3,
          message_retention_days: 4,
          visibility_timeout_default: 30,
        },
      ],
    },
    error: null,
    metadata: { request_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' },
  });
}

/**
 * A loopback HTTP server that answers what a test tells it to: the shapes the simulator will not
 * produce (drips, huge bodies, redirects, lies). Every socket is destroyed on close, so a test
 * never waits for a connection the client left hanging.
 */
export async function startHostileServer(): Promise<HostileServer> {
  let handler: HostileHandler = (_req, res) => res.end('{}');
  const seen: HostileServer['seen'] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/v1/queue/list') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(queueListAnswer());
      return;
    }
    seen.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
    try {
      await handler(req, res, Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    handle: (next) => {
      handler = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** An Infrai envelope as text. */
export function envelope(data: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ok: true, data, error: null, metadata: { request_id: 'req-1' }, ...extra });
}

/** A consume answer with `count` messages, each a well-formed queueport payload. */
export function consumeAnswer(count: number): string {
  const messages = Array.from({ length: count }, (_, i) => ({
    message_id: `m${i}`,
    receipt_handle: `r${i}`,
    delivery_count: 1,
    payload: { envelope: { n: i }, queueport: 1 },
  }));
  return envelope({ messages });
}
