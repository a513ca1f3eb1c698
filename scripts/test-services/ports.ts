import net from 'node:net';

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
