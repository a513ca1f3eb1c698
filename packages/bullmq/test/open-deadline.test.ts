import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, type QueueError } from '@queueport/core';
import { afterEach, describe, expect, it } from 'vitest';
import { bullmqAdapter } from '../src';
import { redisUrl } from './support/redis';
import { deleteKeys, testRedis as unitRedis } from './support/unit-redis';

const registry = new AdapterRegistry([bullmqAdapter]);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const servers: Server[] = [];
const sockets = new Set<Socket>();

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port nothing listens on: one the OS just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server on loopback that answers each connection as `onData` says (or never). */
async function fakeServer(onData?: (socket: Socket, data: Buffer) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    if (onData) socket.on('data', (data) => onData(socket, data));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function refusal(
  url: string,
  env: Record<string, string> = {},
): Promise<{ error: QueueError; ms: number }> {
  const started = Date.now();
  try {
    const queue = await registry.openQueue(url, { env });
    await queue.close();
  } catch (error) {
    return { error: error as QueueError, ms: Date.now() - started };
  }
  throw new Error(`expected ${url} to be refused`);
}

const testRedis = new URL(redisUrl());

describe('opening a bullmq:// URL has a deadline, and names what went wrong', () => {
  it('refuses a closed port at once with UNAVAILABLE, saying the connection was refused', async () => {
    const { error, ms } = await refusal(`bullmq://127.0.0.1:${await closedPort()}/q`);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error.message).toMatch(/refused the connection/);
    expect(ms).toBeLessThan(6_000);
  });

  it('refuses tls=true against a plain Redis within timeoutMs, naming the TLS handshake', async () => {
    const { error, ms } = await refusal(
      `bullmq://${testRedis.hostname}:${testRedis.port || 6379}/q?tls=true&timeoutMs=1000`,
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error.message).toMatch(/TLS handshake/);
    expect(ms).toBeLessThan(6_000);
  });

  it('refuses a server that takes the connection and never answers, within timeoutMs', async () => {
    const port = await fakeServer();
    const { error, ms } = await refusal(`bullmq://127.0.0.1:${port}/q?timeoutMs=500`);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(ms).toBeLessThan(6_000);
  });

  it('keeps the password out of the refusal when a hostile server echoes every command', async () => {
    const password = 'qp-h2-Secret-4f9Kq2Lz8Xw';
    const port = await fakeServer((socket, data) => {
      socket.write(`-ERR unknown command ${data.toString('latin1').replace(/\r\n/g, ' ')}\r\n`);
    });
    const { error } = await refusal(`bullmq://127.0.0.1:${port}/q?timeoutMs=1000&passwordEnv=PW`, {
      PW: password,
    });
    expect(error.code).toMatch(/UNAVAILABLE|UNAUTHORIZED|INTERNAL/);
    const everything = JSON.stringify({
      message: error.message,
      details: error.details,
      cause: String(error.cause),
    });
    expect(everything).not.toContain(password);
    expect(error.message).not.toContain(password);
  });

  it('lets a process that failed to open exit on its own: no socket or timer is left behind', async () => {
    const url = `bullmq://127.0.0.1:${await closedPort()}/q`;
    const child = spawn(
      process.execPath,
      ['--conditions=@queueport/source', '--import', 'tsx', path.join(here, 'fixtures/open-refused.ts'), url],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const exited = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 30 s');
      }, 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code ?? 'killed');
      });
    });
    expect(exited).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it("keeps the password out of an admin's refusal when a hostile server echoes every command", async () => {
    const password = 'qp-h2-Admin-Secret-7Yh3Wq';
    const port = await fakeServer((socket, data) => {
      socket.write(`-ERR unknown command ${data.toString('latin1').replace(/\r\n/g, ' ')}\r\n`);
    });
    const admin = await registry.openAdmin(`bullmq://127.0.0.1:${port}?timeoutMs=1000&passwordEnv=PW`, {
      env: { PW: password },
    });
    try {
      const error = await admin.createQueue({ name: 'never' }).then(
        () => undefined,
        (e: QueueError) => e,
      );
      expect(error).toBeDefined();
      const everything = `${error!.message} ${JSON.stringify(error!.details ?? {})} ${String(error!.cause)}`;
      expect(everything).not.toContain(password);
    } finally {
      await admin.close();
    }
  });

  it('refuses an admin on a closed port with the same cause', async () => {
    const admin = await registry.openAdmin(`bullmq://127.0.0.1:${await closedPort()}`);
    try {
      await expect(admin.createQueue({ name: 'never' })).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/refused the connection/),
      });
    } finally {
      await admin.close();
    }
  });

  it("declares the URL's timeoutMs as the driver's own call deadline", async () => {
    const url = new URL(`bullmq://${testRedis.host}/deadline-q?timeoutMs=2500&prefix=qp-unit-deadline`);
    const driver = await registry.openDriver(url);
    try {
      expect(driver.callTimeoutMs).toBe(2500);
    } finally {
      await driver.close();
      const redis = unitRedis();
      await deleteKeys(redis, 'qp-unit-deadline:*');
      await redis.quit();
    }
  });
});
