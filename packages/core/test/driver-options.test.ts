import { checkDriverOptions, type DriverOptionsSchema, type QueueError } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

const schema: DriverOptionsSchema = {
  type: 'object',
  properties: {
    client: {},
    windowSeconds: { type: 'integer', minimum: 1, maximum: 900 },
    prefix: { type: 'string', minLength: 1, pattern: '^[^:]*$' },
  },
};

function refusal(value: object): QueueError {
  try {
    checkDriverOptions('demo driver options', schema, value);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error('expected a refusal');
}

describe('checkDriverOptions', () => {
  it('returns a copy of what it checked, keeping what is no JSON (a client) as it is', () => {
    const client = new (class Client {})();
    const given = { client, windowSeconds: 60 };
    const checked = checkDriverOptions('demo driver options', schema, given);
    expect(checked).toEqual(given);
    expect(checked).not.toBe(given);
    expect(checked.client).toBe(client);
  });

  it('names every problem by its field, never quoting a value', () => {
    const error = refusal({ windowSeconds: 901, prefix: 'sk_live:abcdef' });
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'windowSeconds' } });
    expect(error.message).toMatch(
      /^invalid demo driver options: windowSeconds must be <= 900; prefix must match/,
    );
    expect(error.message).not.toContain('sk_live');
    expect(refusal({ windowSeconds: 1.5 }).message).toContain('windowSeconds must be an integer');
  });

  it('refuses a getter that throws as a typed error, reading each option once', () => {
    let reads = 0;
    const given = {
      get windowSeconds() {
        reads++;
        return reads === 1 ? 5 : 5000;
      },
    };
    expect(checkDriverOptions('demo driver options', schema, given).windowSeconds).toBe(5);
    expect(reads).toBe(1);
    const broken = {
      get windowSeconds(): number {
        throw new Error('boom');
      },
    };
    expect(refusal(broken)).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
