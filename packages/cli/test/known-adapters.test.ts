import { isQueueError } from '@queueport/core';
import { describe, expect, it, vi } from 'vitest';
import { loadAdapter } from '../src/providers/known-adapters';

vi.mock('@queueport/sqs', () => {
  throw Object.assign(new Error("Cannot find package '@aws-sdk/client-sqs'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
});

describe('loadAdapter', () => {
  it('loads a known adapter by scheme, lazily', async () => {
    expect((await loadAdapter('memory')).packageName).toBe('@queueport/memory');
  });

  it('names the package and peers to install when an optional adapter is missing', async () => {
    const error = await loadAdapter('sqs').catch((e: unknown) => e);
    expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toBe(
      'sqs:// providers need @queueport/sqs and its peers @aws-sdk/client-sqs, which could not be loaded: npm i @queueport/sqs @aws-sdk/client-sqs',
    );
  });

  it('prefers a program’s own adapter for a scheme', async () => {
    const own = {
      scheme: 'memory',
      packageName: 'mine',
      virtualClock: false,
      open: () => Promise.reject(new Error('x')),
    };
    expect(await loadAdapter('memory', [own])).toBe(own);
    await expect(loadAdapter('kafka')).rejects.toThrow('no adapter for kafka://');
  });
});
