import { describe, expect, it } from 'vitest';
import { describeOutcome } from '../src/drill/canary';

describe('what the drill says of the receiver step', () => {
  it('tells a signing secret the sender cannot use apart from a receiver it cannot reach', () => {
    expect(
      describeOutcome(
        { kind: 'retry', reason: 'signing secret #1 decodes to 21 bytes', attemptMs: 0 },
        false,
      ),
    ).toMatch(/^receiver misconfigured: signing secret/);
    expect(
      describeOutcome({ kind: 'retry', reason: 'connect ECONNREFUSED 127.0.0.1:1', attemptMs: 3 }, false),
    ).toMatch(/^receiver unreachable: connect ECONNREFUSED/);
    expect(describeOutcome({ kind: 'retry', status: 503, reason: 'http 503', attemptMs: 3 }, false)).toBe(
      'receiver refused: it answered HTTP 503',
    );
  });
});
