import type { Redis } from 'ioredis';

/** A blocking command that outlives its timeout by this much is presumed stuck (ioredis re-sends blocked commands after a reconnect). */
const WATCHDOG_GRACE_MS = 1000;

/**
 * The long poll. BullMQ wakes its workers through a marker sorted set: score 0 when a job is
 * ready, or the due time of the next delayed job. A wait pops a marker on a connection of its
 * own (a blocking command holds the connection it runs on) and sleeps until a delayed job is due.
 *
 * An abort cannot interrupt a blocking command, so an aborted wait drops its connection: the
 * command dies with it and cannot take a marker meant for another consumer.
 */
export class MarkerWait {
  readonly #connection: Redis;
  readonly #key: string;
  #blocking: Redis | undefined;
  #closed = false;

  constructor(connection: Redis, key: string) {
    this.#connection = connection;
    this.#key = key;
  }

  /** Resolves when work may be there, `ms` passed, or `signal` aborted; never rejects. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#closed || signal.aborted || ms <= 0) return;
    const deadline = Date.now() + ms;
    const client = this.#client();
    // Redis takes fractional seconds; 1 ms is its resolution.
    const popping = client.bzpopmin(this.#key, Math.max(0.001, ms / 1000).toFixed(3)).catch(() => null);
    const interrupted = new Promise<'aborted'>((resolve) => {
      const timer = setTimeout(() => resolve('aborted'), ms + WATCHDOG_GRACE_MS);
      const onAbort = () => resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      void popping.finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      });
    });
    const popped = await Promise.race([popping, interrupted]);
    if (popped === 'aborted') {
      this.#drop(client);
      return;
    }
    if (!popped) return;
    const [, member, rawScore] = popped;
    const dueAt = Number(rawScore);
    if (!(dueAt > Date.now())) return;
    // A delayed job is due later: sleep until then, or hand the marker back for the others.
    const reached = await sleepUntil(Math.min(dueAt, deadline), signal);
    if (!reached || dueAt > deadline) {
      await this.#connection.zadd(this.#key, 'LT', dueAt, member).catch(() => {});
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#blocking) this.#drop(this.#blocking);
  }

  #client(): Redis {
    if (!this.#blocking) {
      this.#blocking = this.#connection.duplicate({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        // A long poll outlasts any command timeout; the watchdog above bounds it instead.
        commandTimeout: undefined,
      });
      // Its failures surface as a wait that ends early; the next receive tells the real story.
      this.#blocking.on('error', () => {});
    }
    return this.#blocking;
  }

  #drop(client: Redis): void {
    if (this.#blocking === client) this.#blocking = undefined;
    client.disconnect();
  }
}

function sleepUntil(at: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.max(0, at - Date.now()),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
