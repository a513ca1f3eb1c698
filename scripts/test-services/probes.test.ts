import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, LOCALHOST } from './ports';
import { postgresUsable } from './postgres';
import { redisPing } from './redis';

// A port that accepts connections and never says a word: the case a client could wait on forever.
let silent: net.Server;
let silentPort: number;
let closedPort: number;
const accepted = new Set<net.Socket>();

beforeAll(async () => {
  silent = net.createServer((socket) => {
    accepted.add(socket);
    socket.once('close', () => accepted.delete(socket));
    // Reading is what lets this side notice the client hanging up.
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, LOCALHOST, resolve));
  silentPort = (silent.address() as net.AddressInfo).port;
  closedPort = await freePort();
});

afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

async function failsWithin(ms: number, probe: Promise<void>): Promise<string> {
  const started = Date.now();
  const error = await probe.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(Error);
  expect(Date.now() - started).toBeLessThan(ms);
  return (error as Error).message;
}

describe('probes give up instead of hanging', () => {
  it('Redis on a closed port', async () => {
    expect(await failsWithin(1000, redisPing(`redis://${LOCALHOST}:${closedPort}`, 500))).toMatch(
      /ECONNREFUSED/,
    );
  });

  it('Redis on a silent port, without showing the password', async () => {
    const message = await failsWithin(1000, redisPing(`redis://:hunter2@${LOCALHOST}:${silentPort}`, 500));
    expect(message).toMatch(/no answer within 500 ms/);
    expect(message).not.toContain('hunter2');
  });

  it('PostgreSQL on a closed port', async () => {
    const url = `postgres://postgres@${LOCALHOST}:${closedPort}/test`;
    expect(await failsWithin(1000, postgresUsable(url, 500))).toMatch(/ECONNREFUSED/);
  });

  it('PostgreSQL on a silent port, without showing the password', async () => {
    const url = `postgres://postgres:hunter2@${LOCALHOST}:${silentPort}/test`;
    const message = await failsWithin(1000, postgresUsable(url, 500));
    expect(message).toMatch(/no answer within 500 ms/);
    expect(message).not.toContain('hunter2');
  });

  it('leave no connection open behind them', async () => {
    await expect.poll(() => accepted.size, { timeout: 1000 }).toBe(0);
  });
});
