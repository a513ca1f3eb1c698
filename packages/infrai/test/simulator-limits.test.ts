import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type InfraiSimulator, type InfraiSimulatorOptions, startInfraiSimulator } from '../src/testing';
import { callCapability, rawRequest } from '../src/testing/raw-client';

let clock: VirtualClock;
let sim: InfraiSimulator;
afterEach(async () => {
  await sim.close();
});

async function started(options: InfraiSimulatorOptions) {
  clock = new VirtualClock();
  sim = await startInfraiSimulator({ clock, ...options });
}
const list = (apiKey?: string) => callCapability(sim, 'queue.list', {}, apiKey ? { apiKey } : {});

describe('the rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After in whole seconds past the limit, per API key', async () => {
    await started({ rateLimit: { requests: 3, perSeconds: 10 }, apiKeys: ['ifr_a', 'ifr_b'] });
    for (let i = 0; i < 3; i++) {
      expect((await list()).status).toBe(200);
      await clock.advance(1_500);
    }
    const limited = await list();
    expect(limited.status).toBe(429);
    expect(limited.envelope.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    // The first request leaves the window 10 s after it was made: 10 - 4.5 = 5.5 s, rounded up.
    expect(limited.headers['retry-after']).toBe('6');
    expect((await list('ifr_b')).status).toBe(200);
  });

  it('admits again once the window has slid past, not counting the refusals', async () => {
    await started({ rateLimit: { requests: 2, perSeconds: 1 } });
    await list();
    await list();
    for (let i = 0; i < 5; i++) expect((await list()).status).toBe(429);
    await clock.advance(999);
    expect((await list()).status).toBe(429);
    await clock.advance(1);
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(429);
  });

  it('never limits discovery, which is public', async () => {
    await started({ rateLimit: { requests: 1, perSeconds: 60 } });
    await list();
    for (let i = 0; i < 3; i++) {
      expect((await rawRequest(sim, { method: 'GET', path: '/v1/discovery', apiKey: null })).status).toBe(
        200,
      );
    }
  });
});

describe('credit', () => {
  it('answers 402 INSUFFICIENT_CREDIT, not retryable, once the billable requests are spent', async () => {
    await started({ credit: 2 });
    expect((await list()).status).toBe(200);
    expect(sim.creditLeft()).toBe(1);
    expect((await list()).status).toBe(200);
    const broke = await list();
    expect(broke.status).toBe(402);
    expect(broke.envelope.error).toMatchObject({ code: 'INSUFFICIENT_CREDIT', retryable: false });
    expect((await callCapability(sim, 'queue.consume', { queue: 'x' })).status).toBe(402);
    expect(
      (await rawRequest(sim, { method: 'GET', path: '/v1/discovery/queue.list', apiKey: null })).status,
    ).toBe(200);
  });

  it('charges successes only: refusals and idempotent replays are free', async () => {
    await started({ credit: 3 });
    await callCapability(sim, 'queue.create', { name: 'q', idempotency_key: 'c' });
    expect((await callCapability(sim, 'queue.consume', { queue: 'missing' })).status).toBe(404);
    expect((await callCapability(sim, 'queue.consume', { queue: 'q', max_messages: 99 })).status).toBe(400);
    await callCapability(sim, 'queue.create', { name: 'q', idempotency_key: 'c' });
    expect(sim.creditLeft()).toBe(2);
  });

  it('is changed by setCredit; undefined is unlimited', async () => {
    await started({ credit: 0 });
    expect((await list()).status).toBe(402);
    sim.setCredit(1);
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(402);
    sim.setCredit(undefined);
    for (let i = 0; i < 3; i++) expect((await list()).status).toBe(200);
    expect(sim.creditLeft()).toBeUndefined();
    expect(() => sim.setCredit(-1)).toThrow(RangeError);
  });

  it('checks the key first, then the rate limit, then credit', async () => {
    await started({ credit: 0, rateLimit: { requests: 1, perSeconds: 60 } });
    expect((await list('ifr_unknown')).status).toBe(401);
    expect((await list()).status).toBe(402);
    expect((await list()).status).toBe(429);
  });
});
