import { SimulatorError } from './simulator-error';

export interface RateLimit {
  requests: number;
  perSeconds: number;
}

/**
 * A sliding window per API key, on the simulator's clock: a request is admitted when fewer than
 * `requests` were admitted in the `perSeconds` before it. Refused requests do not count, so a
 * client that honours Retry-After gets in when it says.
 */
export class RateLimiter {
  readonly #admitted = new Map<string, number[]>();
  readonly #limit: RateLimit | undefined;

  constructor(limit: RateLimit | undefined) {
    if (limit && !(Number.isInteger(limit.requests) && limit.requests > 0 && limit.perSeconds > 0)) {
      throw new RangeError(
        'rateLimit needs a positive whole number of requests per a positive number of seconds',
      );
    }
    this.#limit = limit;
  }

  admit(apiKey: string, now: number): void {
    const limit = this.#limit;
    if (!limit) return;
    const windowMs = limit.perSeconds * 1000;
    const times = this.#admitted.get(apiKey) ?? [];
    while (times.length > 0 && (times[0] ?? 0) <= now - windowMs) times.shift();
    if (times.length >= limit.requests) {
      const retryAfter = Math.max(1, Math.ceil(((times[0] ?? now) + windowMs - now) / 1000));
      throw new SimulatorError(
        'RATE_LIMITED',
        `more than ${limit.requests} requests in ${limit.perSeconds} s for this API key`,
        { hint: `retry after ${retryAfter} s`, headers: { 'retry-after': String(retryAfter) } },
      );
    }
    times.push(now);
    this.#admitted.set(apiKey, times);
  }
}
