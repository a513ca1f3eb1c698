/**
 * The campaign's receiver, a process of its own so that it outlives every worker it is sent to:
 * each request's event id, idempotency key and answer are appended to `--log` and fsynced before
 * the answer leaves, so the record holds every request a worker could have seen answered. It
 * prints `{ "url": … }` once listening and exits when stdin ends (its parent is gone) or on
 * SIGTERM.
 *
 *   node --import tsx scripts/chaos/receiver-process.ts --log /tmp/requests.jsonl
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    log: { type: 'string' },
    // Faults: the first request of each event is applied and recorded, then answered this late
    // (past the sender's timeout); and every request is held this long before it is applied,
    // a request whose client is gone by then never applied (as a receiver that rolls back).
    'late-first-ms': { type: 'string', default: '0' },
    'hold-ms': { type: 'string', default: '0' },
    // 0 takes a free one; a restarted receiver takes its predecessor's, where workers look for it.
    port: { type: 'string', default: '0' },
  },
});
const lateFirstMs = Number(values['late-first-ms']);
const holdMs = Number(values['hold-ms']);
const seen = new Set<string>();
if (!values.log) {
  process.stderr.write('receiver-process: --log is required\n');
  process.exit(2);
}
/** A body this large is no envelope of the campaign's: refused before it is buffered. */
const MAX_BODY_BYTES = 64 * 1024;

// A receiver restarted after a crash knows which events it has seen from its own record.
if (existsSync(values.log)) {
  for (const line of readFileSync(values.log, 'utf8').split('\n')) {
    if (line.endsWith('}')) seen.add((JSON.parse(line) as { eventId: string }).eventId);
  }
}
const log = openSync(values.log, 'a');

function eventIdOf(body: string): string {
  try {
    const id = (JSON.parse(body) as { event_id?: unknown }).event_id;
    return typeof id === 'string' ? id : '(no event_id)';
  } catch {
    return '(no envelope)';
  }
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) request.destroy();
    else chunks.push(chunk);
  });
  let gone = false;
  response.on('close', () => {
    gone = !response.writableFinished;
  });
  request.on('end', () => {
    const apply = () => {
      if (gone) return;
      const key = request.headers['idempotency-key'];
      const status = 200;
      const eventId = eventIdOf(Buffer.concat(chunks).toString('utf8'));
      const line = { eventId, idempotencyKey: typeof key === 'string' ? key : '', status };
      // Durable before the answer: a worker that saw this 200 left a record of it behind.
      writeSync(log, `${JSON.stringify(line)}\n`);
      fsyncSync(log);
      const late = lateFirstMs > 0 && !seen.has(eventId);
      seen.add(eventId);
      const answer = () =>
        response.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (late) setTimeout(answer, lateFirstMs);
      else answer();
    };
    if (holdMs > 0) setTimeout(apply, holdMs);
    else apply();
  });
});

server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver-process: no port');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}/hooks` })}\n`);
});

function stop(): void {
  server.close();
  server.closeAllConnections();
  closeSync(log);
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
