import type { Client, ClientConfig } from 'pg';
import { loadPg } from './connection';

/**
 * LISTEN on one queue's channel, on a connection of its own (a pooled one loses its LISTEN when
 * returned), opened at the first wait and again after it dies. A notification only shortens a
 * wait: a receive polls anyway, so one lost with its connection costs a poll, never a message.
 */
export class WakeListener {
  #client: Promise<Client | undefined> | undefined;
  readonly #waiters = new Set<() => void>();

  constructor(
    readonly config: ClientConfig,
    readonly channel: string,
  ) {}

  /** Resolves at the next notification, after `ms`, or when `signal` aborts; whichever is first. */
  next(ms: number, signal: AbortSignal | undefined): Promise<void> {
    this.#client ??= this.#connect();
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, ms);
    signal?.addEventListener('abort', wake, { once: true });
    this.#waiters.add(wake);
    return woken.then(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
      this.#waiters.delete(wake);
    });
  }

  async close(): Promise<void> {
    const client = await this.#client;
    this.#client = undefined;
    for (const wake of this.#waiters) wake();
    await client?.end().catch(() => undefined);
  }

  #connect(): Promise<Client | undefined> {
    const current = (async () => {
      const client = new (await loadPg()).Client(this.config);
      // Waits wake to look again, and the next one reconnects: nothing waits out a dead LISTEN.
      const lost = () => {
        if (this.#client === current) this.#client = undefined;
        for (const wake of this.#waiters) wake();
      };
      client.on('error', lost).on('end', lost);
      client.on('notification', () => {
        for (const wake of this.#waiters) wake();
      });
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
        return client;
      } catch {
        lost();
        client.end().catch(() => undefined);
        return undefined;
      }
    })();
    return current;
  }
}
