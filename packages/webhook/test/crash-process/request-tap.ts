import type { ServerResponse } from 'node:http';
import { startServer, type TestServer } from '../helpers/http-servers';

/** Headers that describe one hop, not the request: the forwarding fetch sets its own. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/**
 * A loopback hop in front of a receiver that counts every request per envelope `event_id`
 * before forwarding it unchanged. The reference receiver counts effects, and answers a replay
 * without one: only the requests show that a killed process had already sent.
 */
export interface RequestTap {
  url: string;
  requestsFor(eventId: string): number;
  close(): Promise<void>;
}

export async function startRequestTap(target: string): Promise<RequestTap> {
  const counts = new Map<string, number>();
  const server: TestServer = await startServer(async (request, res) => {
    const eventId = eventIdOf(request.body);
    counts.set(eventId, (counts.get(eventId) ?? 0) + 1);
    await forward(target, request, res);
  });
  return {
    url: server.url,
    requestsFor: (eventId) => counts.get(eventId) ?? 0,
    close: () => server.close(),
  };
}

function eventIdOf(body: string): string {
  try {
    const id = (JSON.parse(body) as { event_id?: unknown }).event_id;
    return typeof id === 'string' ? id : '(no event_id)';
  } catch {
    return '(no envelope)';
  }
}

async function forward(
  target: string,
  request: { method: string; headers: Record<string, string | string[] | undefined>; body: string },
  res: ServerResponse,
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    const answer = await fetch(target, { method: request.method, headers, body: request.body });
    const text = await answer.text();
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(text);
  } catch {
    res.writeHead(502).end();
  }
}
