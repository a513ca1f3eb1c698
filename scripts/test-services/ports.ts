import net from 'node:net';
import tls from 'node:tls';

export const LOCALHOST = '127.0.0.1';

/**
 * Asks the kernel for a port that is free right now. Another process may still take it before
 * the server binds, so starters retry with a new port when the server fails to come up.
 */
export function freePort(host = LOCALHOST): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read the port of a probe listener'));
      });
    });
  });
}

export interface ExchangeOptions {
  host: string;
  port: number;
  send: Buffer | string;
  /** True once `received` holds the whole answer. */
  complete: (received: Buffer) => boolean;
  timeoutMs?: number;
  tls?: boolean;
  /** Sent after a complete answer so the server sees an orderly goodbye, not a dropped client. */
  farewell?: Buffer;
}

/**
 * Connects, sends one request and collects the answer: enough to tell that a real server of the
 * expected kind is listening, which a bare TCP connect cannot.
 */
export function exchange(options: ExchangeOptions): Promise<Buffer> {
  const { host, port, send, complete, timeoutMs = 2000 } = options;
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const socket = options.tls
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
      : net.connect({ host, port });
    const finish = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!error && options.farewell) {
        socket.end(options.farewell);
        setTimeout(() => socket.destroy(), 1000).unref();
      } else {
        socket.destroy();
      }
      if (error) reject(error);
      else resolve(received);
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete answer from ${host}:${port} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.once(options.tls ? 'secureConnect' : 'connect', () => socket.write(send));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (complete(received)) finish(undefined);
    });
    socket.on('error', (error) => finish(error));
    socket.once('close', () => finish(new Error(`${host}:${port} closed the connection before answering`)));
  });
}

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Returns a reason to give up early, e.g. the server process already exited. */
  giveUp?: () => string | undefined;
}

/** Polls `ready` until it resolves true; rejects with the last failure once time is up. */
export async function waitUntil(
  what: string,
  ready: () => Promise<boolean>,
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last = 'not ready';
  for (;;) {
    const reason = options.giveUp?.();
    if (reason) throw new Error(`${what}: ${reason}`);
    try {
      if (await ready()) return;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) throw new Error(`${what}: not ready after ${options.timeoutMs} ms (${last})`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/**
 * Runs `start` on a fresh free port, trying another port when the chosen one was taken in the
 * meantime; any other failure is final.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      const inUse = error instanceof Error && /address already in use|EADDRINUSE/i.test(error.message);
      if (!inUse || attempt >= attempts) throw error;
    }
  }
}
