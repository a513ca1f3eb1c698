import { isQueueError } from '@queueport/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertDestination, type DeliveryOutcome, DestinationRegistry, type DisabledNotice } from '../src';
import { checkedDestination } from '../src/destinations/validate-destination';
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

describe('destinations and the registry refuse bad input, naming the field', () => {
  const refusal = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      if (isQueueError(error)) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('registry options', () => {
    for (const [options, field] of [
      [{ onDisabled: 'mail' }, 'onDisabled'],
      [{ now: 5 }, 'now'],
      [{ onDisable: () => {} }, 'onDisable'],
      [null, 'options'],
    ] as const) {
      expect(refusal(() => new DestinationRegistry(options as never))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field },
      });
    }
  });

  it.each([
    [{ id: '', url: 'https://x.test/' }, 'id'],
    [{ id: 'a\nforged log line', url: 'https://x.test/' }, 'id'],
    [{ id: 7, url: 'https://x.test/' }, 'id'],
    [{ id: 'd' }, 'url'],
    [{ id: 'd', url: 'ftp://x.test/' }, 'url'],
    [{ id: 'd', url: 'https://x.test/', secrets: 'whsec_x' }, 'secrets'],
    [{ id: 'd', url: 'https://x.test/', retry: { jitter: '0.5' } }, 'retry.jitter'],
    [{ id: 'd', url: 'https://x.test/', retry: { maxAttempts: 2.5 } }, 'retry.maxAttempts'],
    [{ id: 'd', url: 'https://x.test/', retry: 'fast' }, 'retry'],
    [{ id: 'd', url: 'https://x.test/', idempotencyKeyStyle: 'quoted' }, 'idempotencyKeyStyle'],
    [{ id: 'd', url: 'https://x.test/', headers: { Host: 'internal.example' } }, 'headers.Host'],
    [{ id: 'd', url: 'https://x.test/', headers: { 'x-n': 1 } }, 'headers.x-n'],
    [{ id: 'd', url: 'https://x.test/', headers: [] }, 'headers'],
    [{ id: 'd', url: 'https://x.test/', secret: 'whsec_typo' }, 'secret'],
  ])('%j names %s', (destination, field) => {
    const error = refusal(() => new DestinationRegistry().register(destination as never));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    expect(refusal(() => assertDestination(destination))).toMatchObject({ details: { field } });
  });

  it('never echoes a secret, a header value or a URL with credentials', () => {
    const secret = newSecret();
    const texts = [
      { id: 'd', url: 'https://user:hunter2@x.test/?token=abc123' },
      { id: 'd', url: 'https://x.test/', secrets: [secret, `${secret}!`] },
      { id: 'd', url: 'https://x.test/', headers: { authorization: 'Bearer tok_live_1\r\n' } },
    ].map((destination) => {
      const error = refusal(() => assertDestination(destination));
      return `${error.message} ${JSON.stringify(error)}`;
    });
    for (const text of texts) {
      for (const leaked of ['hunter2', 'abc123', secret.slice(6), 'tok_live_1'])
        expect(text).not.toContain(leaked);
    }
    expect(texts[0]).toMatch(/url must not carry credentials/);
  });

  it('keeps a frozen copy: changing the registered object afterwards changes nothing', () => {
    const registry = new DestinationRegistry();
    const headers: Record<string, unknown> = { 'x-tenant': 'acme' };
    const original = { id: 'd', url: 'https://x.test/', headers: headers as Record<string, string> };
    registry.register(original);
    headers['x-tenant'] = 42;
    headers.host = 'internal.example';
    const stored = registry.require('d');
    expect(stored.headers).toEqual({ 'x-tenant': 'acme' });
    expect(Object.isFrozen(stored) && Object.isFrozen(stored.headers)).toBe(true);
  });

  it('any JSON-ish destination: registered, or INVALID_ARGUMENT naming a field (property)', () => {
    const field = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(undefined, Number.NaN, newSecret(), 'https://x.test/'),
    );
    const destination = fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.string(), field),
          url: fc.oneof(fc.webUrl(), field),
          secrets: fc.oneof(fc.array(fc.oneof(fc.constant(newSecret()), fc.string())), field),
          headers: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.string(), field)), field),
          retry: fc.oneof(fc.dictionary(fc.constantFrom('maxAttempts', 'baseMs', 'jitter'), field), field),
        },
        { requiredKeys: [] },
      ),
      field,
    );
    fc.assert(
      fc.property(destination, (value) => {
        try {
          new DestinationRegistry().register(value as never);
        } catch (error) {
          expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
          expect(typeof (error as { details: { field?: unknown } }).details.field).toBe('string');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('checked destination snapshots', () => {
  it('a snapshot made by the check is frozen throughout and passes again as itself, unchecked', () => {
    const snapshot = checkedDestination({
      id: 'd1',
      url: 'https://hooks.example.com/in',
      secrets: [newSecret()],
      headers: { Authorization: 'Bearer x' },
      retry: { maxAttempts: 3 },
    });
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot.secrets)).toBe(true);
    expect(Object.isFrozen(snapshot.headers)).toBe(true);
    expect(Object.isFrozen(snapshot.retry)).toBe(true);
    expect(checkedDestination(snapshot)).toBe(snapshot);
  });

  it('a lookalike that the check did not make is checked like any input', () => {
    const snapshot = checkedDestination({ id: 'd2', url: 'https://hooks.example.com/in' });
    const lookalike = { ...snapshot };
    expect(checkedDestination(lookalike)).not.toBe(lookalike);
    expect(() => checkedDestination({ ...snapshot, url: 'ftp://hooks.example.com' })).toThrow();
  });
});
