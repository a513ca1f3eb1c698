import { exchange } from './ports';

// Wire-protocol constants from the PostgreSQL "Message Formats" chapter.
const SSL_REQUEST_CODE = 80877103;
const PROTOCOL_3_0 = 196608;

export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  database: string;
  password?: string;
}

export function parsePostgresUrl(url: string): PostgresTarget {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username) || 'postgres';
  return {
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 5432),
    user,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}

/** Sends an SSLRequest; a PostgreSQL server answers a single 'S' or 'N' before any login. */
export async function postgresSslAnswer(host: string, port: number, timeoutMs = 2000): Promise<'S' | 'N'> {
  const request = Buffer.alloc(8);
  request.writeInt32BE(8, 0);
  request.writeInt32BE(SSL_REQUEST_CODE, 4);
  const answer = await exchange({ host, port, send: request, complete: (r) => r.length >= 1, timeoutMs });
  const code = answer.subarray(0, 1).toString('latin1');
  if (code !== 'S' && code !== 'N')
    throw new Error(`not PostgreSQL: SSLRequest answered ${JSON.stringify(code)}`);
  return code;
}

interface Message {
  type: string;
  body: Buffer;
}

function completeMessages(buffer: Buffer): Message[] {
  const messages: Message[] = [];
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const length = buffer.readInt32BE(offset + 1);
    if (buffer.length - offset < 1 + length) break;
    messages.push({
      type: buffer.toString('latin1', offset, offset + 1),
      body: buffer.subarray(offset + 5, offset + 1 + length),
    });
    offset += 1 + length;
  }
  return messages;
}

function errorText(body: Buffer): string {
  const fields = new Map<string, string>();
  let offset = 0;
  while (offset < body.length && body[offset] !== 0) {
    const end = body.indexOf(0, offset + 1);
    if (end < 0) break;
    fields.set(String.fromCharCode(body[offset] ?? 0), body.toString('utf8', offset + 1, end));
    offset = end + 1;
  }
  return `${fields.get('S') ?? 'ERROR'}: ${fields.get('M') ?? 'unknown error'}`;
}

const needsPassword = (m: Message) => m.type === 'R' && m.body.readInt32BE(0) !== 0;

/**
 * Starts a session as `user` on `database` and stops once the server accepts it (trust), asks
 * for a password, or refuses: this proves the URL names a database that exists and a role that
 * may log in, without a client library. With trust auth it ends the session with Terminate.
 */
export async function postgresLoginCheck(target: PostgresTarget, timeoutMs = 3000): Promise<void> {
  const params = Buffer.from(`user\0${target.user}\0database\0${target.database}\0\0`, 'utf8');
  const startup = Buffer.alloc(8 + params.length);
  startup.writeInt32BE(startup.length, 0);
  startup.writeInt32BE(PROTOCOL_3_0, 4);
  params.copy(startup, 8);
  const terminate = Buffer.from([0x58, 0, 0, 0, 4]);
  const answer = await exchange({
    host: target.host,
    port: target.port,
    send: startup,
    complete: (r) => completeMessages(r).some((m) => m.type === 'Z' || m.type === 'E' || needsPassword(m)),
    timeoutMs,
    farewell: terminate,
  });
  const messages = completeMessages(answer);
  const refusal = messages.find((m) => m.type === 'E');
  if (refusal)
    throw new Error(`PostgreSQL refused ${target.user}@${target.database}: ${errorText(refusal.body)}`);
  if (messages.some(needsPassword) && target.password === undefined) {
    throw new Error(`PostgreSQL wants a password for ${target.user}@${target.database} and the URL has none`);
  }
}
