import { redactSecrets } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { infraiAdapter } from '../src';

describe("Infrai's key pattern", () => {
  it('is declared by its adapter and masked by core once the adapter is loaded', () => {
    expect(infraiAdapter.secretPatterns?.some((pattern) => pattern.test('ifr_pk_proj_abc123'))).toBe(true);
    expect(redactSecrets('key ifr_pk_proj_abc123 rejected')).toBe('key [REDACTED] rejected');
  });
});
