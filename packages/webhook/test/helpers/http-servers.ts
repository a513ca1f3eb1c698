import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  url: string;
  port: number;
  received: RecordedRequest[];
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 that records every request before handing it on. */
export async function startServer(
  handler: (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>,
): Promise<TestServer> {
  const received: RecordedRequest[] = [];
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw as AsyncIterable<Buffer>) chunks.push(chunk);
    const request = {
      method: raw.method ?? '',
      path: raw.url ?? '',
      headers: raw.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    received.push(request);
    await handler(request, res, raw);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function answer(
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
  body = '',
): void {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(body);
}
