import { isQueueError } from '@queueport/core';
import { describe, expect, it, vi } from 'vitest';
import { loadAdapter } from '../src/providers/known-adapters';

// @queueport/sqs is installed, its peer is not: as with `npm i --legacy-peer-deps`, or pnpm.
vi.mock('@aws-sdk/client-sqs', () => {
  throw Object.assign(new Error("Cannot find package '@aws-sdk/client-sqs'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
});

vi.mock('bullmq', () => {
  throw Object.assign(new Error("Cannot find package 'bullmq'"), { code: 'ERR_MODULE_NOT_FOUND' });
});
vi.mock('ioredis', () => {
  throw Object.assign(new Error("Cannot find package 'ioredis'"), { code: 'ERR_MODULE_NOT_FOUND' });
});

const INSTALL =
  'sqs:// providers need @queueport/sqs and its peers @aws-sdk/client-sqs, which could not be loaded: npm i @queueport/sqs @aws-sdk/client-sqs';

describe('an adapter whose peer is not installed', () => {
  it('is still read (its peers, its URL rules), and opening it names the install line', async () => {
    const definition = await loadAdapter('sqs');
    expect(definition.peers).toEqual(['@aws-sdk/client-sqs']);
    expect(() => definition.urls?.check(new URL('sqs://eu-west-1/orders?typo=1'))).toThrow(/no such option/);

    const opened = await Promise.resolve(definition.open(new URL('sqs://eu-west-1/orders'), {})).catch(
      (error: unknown) => error,
    );
    expect(isQueueError(opened, 'INVALID_ARGUMENT')).toBe(true);
    expect((opened as Error).message).toBe(INSTALL);
    await expect(Promise.resolve(definition.admin!(new URL('sqs://eu-west-1'), {}))).rejects.toThrow(INSTALL);
  });

  it('names every peer of the package, from its definition (BullMQ without bullmq and ioredis)', async () => {
    const definition = await loadAdapter('bullmq');
    expect(definition.peers).toEqual(['bullmq', 'ioredis']);
    await expect(
      Promise.resolve(definition.open(new URL('bullmq://127.0.0.1:6379/orders'), {})),
    ).rejects.toThrow(
      'bullmq:// providers need @queueport/bullmq and its peers bullmq, ioredis, which could not be loaded: npm i @queueport/bullmq bullmq ioredis',
    );
  });
});
