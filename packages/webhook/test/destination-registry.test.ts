import { describe, expect, it } from 'vitest';
import { type DeliveryOutcome, DestinationRegistry, type DisabledNotice } from '../src';
import { newSecret } from './helpers/fixtures';

const gone: DeliveryOutcome = { kind: 'disable', status: 410, reason: 'http 410: gone', attemptMs: 3 };

describe('DestinationRegistry', () => {
  it('disables on a 410 outcome and tells onDisabled once', () => {
    const notices: DisabledNotice[] = [];
    const registry = new DestinationRegistry({ onDisabled: (n) => void notices.push(n), now: () => 42 });
    registry.register({ id: 'd1', url: 'https://hooks.example.com/x', secrets: [newSecret()] });
    registry.recordOutcome('d1', { kind: 'retry', status: 503, reason: 'http 503', attemptMs: 1 });
    expect(registry.isDisabled('d1')).toBe(false);
    registry.recordOutcome('d1', gone);
    registry.recordOutcome('d1', gone);
    expect(registry.isDisabled('d1')).toBe(true);
    expect(registry.disabledReason('d1')).toBe('http 410: gone');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ reason: 'http 410: gone', at: 42, destination: { id: 'd1' } });
  });

  it('re-enabling is explicit, and a later 410 notifies again', () => {
    let count = 0;
    const registry = new DestinationRegistry({ onDisabled: () => void count++ });
    registry.register({ id: 'd1', url: 'https://hooks.example.com/x' });
    expect(registry.disable('d1', 'manual')).toBe(true);
    expect(registry.disable('d1', 'again')).toBe(false);
    expect(registry.enable('d1')).toBe(true);
    expect(registry.isDisabled('d1')).toBe(false);
    registry.recordOutcome('d1', gone);
    expect(count).toBe(2);
  });

  it('a throwing or rejecting onDisabled does not undo the disabling', async () => {
    const errors: unknown[] = [];
    const sync = new DestinationRegistry({
      onDisabled: () => {
        throw new Error('mailer down');
      },
      onError: (e) => errors.push(e),
    });
    sync.register({ id: 'd', url: 'https://x.test/' });
    sync.disable('d', 'gone');
    expect(sync.isDisabled('d')).toBe(true);
    const rejecting = new DestinationRegistry({
      onDisabled: async () => Promise.reject(new Error('later')),
      onError: (e) => errors.push(e),
    });
    rejecting.register({ id: 'd', url: 'https://x.test/' });
    rejecting.disable('d', 'gone');
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(2);
  });

  it('validates on register, without echoing secrets or URLs', () => {
    const registry = new DestinationRegistry();
    const bad = 'whsec_short';
    expect(() => registry.register({ id: 'd', url: 'https://x.test/', secrets: [bad] })).toThrow(
      /destination d: signing secret #1/,
    );
    const invalidUrl = () => registry.register({ id: 'd', url: 'not a url?token=abc123', secrets: [] });
    expect(invalidUrl).toThrow(/url is not a valid absolute URL/);
    expect(invalidUrl).not.toThrow(/abc123/);
    expect(() => registry.register({ id: 'd', url: 'https://x.test/', retry: { maxAttempts: 0 } })).toThrow(
      /maxAttempts/,
    );
    expect(() => registry.require('missing')).toThrow(/not registered/);
    expect(registry.list()).toHaveLength(0);
  });

  it('unknown ids are never disabled', () => {
    const registry = new DestinationRegistry();
    expect(registry.disable('nope', 'x')).toBe(false);
    expect(registry.isDisabled('nope')).toBe(false);
  });
});
