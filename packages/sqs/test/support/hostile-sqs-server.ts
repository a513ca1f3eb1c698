import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One answer of the hostile server, as SQS's JSON protocol would carry it, or a way not to. */
export type HostileReply =
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'raw'; status?: number; body: string; headers?: Record<string, string> }
  /** Headers at once, then one byte per `intervalMs`, forever. */
  | { kind: 'drip'; intervalMs: number }
  /** Never a byte: the request is read and left waiting. */
  | { kind: 'hang' }
  /** A well-formed start of a JSON answer, then `bytes` bytes of padding inside a string. */
  | { kind: 'huge'; bytes: number }
  /** The socket is destroyed as soon as the request arrives. */
  | { kind: 'reset' };

export interface HostileRequest {
  /** The operation, as `X-Amz-Target` names it without `AmazonSQS.`: `ReceiveMessage`. */
  operation: string;
  input: Record<string, unknown>;
}

export type HostileHandler = (request: HostileRequest) => HostileReply | undefined;

export interface HostileSqsServer {
  endpoint: string;
  /** The queue URL GetQueueUrl answers, on this server. */
  queueUrl: string;
  /** Every request the server read, in order. */
  requests: HostileRequest[];
  /** Bytes written by `huge` and `drip` answers so far. */
  bytesSent(): number;
  handle: HostileHandler;
  close(): Promise<void>;
}

export const QUEUE_NAME = 'hostile';

export const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** What SQS says for the operations a driver calls at open, unless the handler answers them. */
function defaultReply(request: HostileRequest, queueUrl: string): HostileReply {
  switch (request.operation) {
    case 'GetQueueUrl':
      return { kind: 'json', body: { QueueUrl: queueUrl } };
    case 'GetQueueAttributes':
      return {
        kind: 'json',
        body: {
          Attributes: {
            QueueArn: `arn:aws:sqs:us-east-1:000000000000:${QUEUE_NAME}`,
            MaximumMessageSize: '262144',
            MessageRetentionPeriod: '345600',
          },
        },
      };
    default:
      return { kind: 'json', body: {} };
  }
}

/**
 * A loopback server that speaks SQS's JSON protocol as badly as it is told to: the handler
 * decides each answer. Standing in for a broken proxy, a hostile endpoint or a server that
 * never answers, where moto answers only correctly.
 */
export async function startHostileSqsServer(
  handle: HostileHandler = () => undefined,
): Promise<HostileSqsServer> {
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let sent = 0;
  let queueUrl = '';
  const state: HostileSqsServer = {
    endpoint: '',
    queueUrl: '',
    requests,
    bytesSent: () => sent,
    handle,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      let input: Record<string, unknown> = {};
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {}
      const request = { operation: target.replace(/^AmazonSQS\./, ''), input };
      requests.push(request);
      const reply = state.handle(request) ?? defaultReply(request, queueUrl);
      answer(res, reply);
    });
  });
  const answer = (res: ServerResponse, reply: HostileReply) => {
    const jsonHeaders = { 'content-type': 'application/x-amz-json-1.0' };
    switch (reply.kind) {
      case 'json':
      case 'raw': {
        const body = reply.kind === 'json' ? JSON.stringify(reply.body) : reply.body;
        res.writeHead(reply.status ?? 200, { ...jsonHeaders, ...reply.headers });
        res.end(body);
        return;
      }
      case 'drip': {
        res.writeHead(200, jsonHeaders);
        res.write('{');
        const timer = setInterval(() => {
          sent += 1;
          res.write(' ');
        }, reply.intervalMs);
        timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'hang':
        return;
      case 'huge': {
        res.writeHead(200, jsonHeaders);
        res.write('{"Messages":[{"MessageId":"m","ReceiptHandle":"r","Body":"');
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let left = reply.bytes;
        const pump = () => {
          while (left > 0) {
            const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
            left -= piece.length;
            sent += piece.length;
            if (!res.write(piece)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end('"}]}');
        };
        res.on('close', () => {
          left = 0;
        });
        pump();
        return;
      }
      case 'reset':
        res.socket?.destroy();
        return;
    }
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.endpoint = `http://127.0.0.1:${port}`;
  queueUrl = `${state.endpoint}/000000000000/${QUEUE_NAME}`;
  state.queueUrl = queueUrl;
  return state;
}

/** A received message as SQS writes it, its MD5 right so the SDK's own check passes. */
export function sqsMessage(fields: {
  id: string;
  receipt: string;
  body: string;
  attributes?: Record<string, string>;
}) {
  return {
    MessageId: fields.id,
    ReceiptHandle: fields.receipt,
    Body: fields.body,
    MD5OfBody: md5(fields.body),
    Attributes: { ApproximateReceiveCount: '1', ...fields.attributes },
  };
}
