import { once } from 'node:events';
import { createServer, type Server, connect as tcpConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { VirtualClock } from '@queueport/core/testing';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { schemasPerFile } from './support/postgres';

const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_open', connectionString);

/** A FATAL ErrorResponse, as a server that cannot take the connection yet sends it. */
function fatal(sqlstate: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlstate}\0M${message}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0, 'latin1');
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/**
 * Stands in for a PostgreSQL server that is starting up: the first `refusals` connections are
 * answered, after their startup message, with the given FATAL error; later ones are passed
 * through to the real server.
 */
async function startingServer(refusals: number, sqlstate: string, message: string) {
  const real = new URL(connectionString);
  let seen = 0;
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    if (seen++ < refusals) {
      socket.once('data', () => socket.end(fatal(sqlstate, message)));
      return;
    }
    const upstream = tcpConnect(Number(real.port || 5432), real.hostname);
    upstream.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const url = new URL(connectionString);
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), connections: () => seen, server };
}

describe('openPostgresLedger while the server is not ready', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.close();
    }
  });

  it.each([
    ['57P03', 'the database system is starting up'],
    ['57P01', 'terminating connection due to administrator command'],
    ['08006', 'connection failure'],
  ])('retries through SQLSTATE %s and opens once the server takes connections', async (sqlstate, message) => {
    const fake = await startingServer(3, sqlstate, message);
    servers.push(fake.server);
    const schema = schemas.next();
    const ledger = await openPostgresLedger({
      connectionString: fake.url,
      schema,
      clock: new VirtualClock(),
    });
    try {
      expect(fake.connections()).toBeGreaterThanOrEqual(4);
      expect(await ledger.get('never-seen')).toBeUndefined();
    } finally {
      await ledger.close();
      await schemas.drop(schema);
    }
  });

  it('gives up after openTimeoutMs with a typed, retryable UNAVAILABLE naming the SQLSTATE', async () => {
    const fake = await startingServer(
      Number.POSITIVE_INFINITY,
      '57P03',
      'the database system is starting up',
    );
    servers.push(fake.server);
    const started = performance.now();
    const error = await openPostgresLedger({
      connectionString: fake.url,
      schema: schemas.next(),
      openTimeoutMs: 800,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect((error as Error).message).toContain('57P03');
    expect((error as Error).message).toContain('800 ms');
    expect(fake.connections()).toBeGreaterThan(1);
    // Generous: the deadline plus one connection attempt.
    expect(performance.now() - started).toBeLessThan(800 + 5_000);
  });

  it('does not retry what waiting cannot fix', async () => {
    const fake = await startingServer(Number.POSITIVE_INFINITY, '28P01', 'password authentication failed');
    servers.push(fake.server);
    const error = await openPostgresLedger({ connectionString: fake.url, schema: schemas.next() }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ retryable: false });
    expect(fake.connections()).toBe(1);
  });

  it('refuses an openTimeoutMs that is not a whole number of milliseconds', async () => {
    for (const openTimeoutMs of [-1, 1.5, Number.NaN]) {
      await expect(openPostgresLedger({ connectionString, openTimeoutMs })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    }
  });
});
