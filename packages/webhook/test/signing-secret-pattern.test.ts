import { redactSecrets } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import '../src';

describe('the Standard Webhooks secret pattern', () => {
  it('is registered by the signing module, so core masks a whsec_ secret anywhere', () => {
    expect(redactSecrets('secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw= is wrong')).toBe(
      'secret [REDACTED] is wrong',
    );
  });
});
