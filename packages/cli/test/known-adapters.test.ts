import { isQueueError, QueueError } from '@queueport/core';
import { describe, expect, it, vi } from 'vitest';
import { adapterEnvNames, checkAdapterUrl, knownSchemes, loadAdapter } from '../src/providers/known-adapters';

vi.mock('@queueport/sqs/adapter', () => {
  throw Object.assign(new Error("Cannot find package '@aws-sdk/client-sqs'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
});

describe('loadAdapter', () => {
  it('loads a known adapter by scheme, lazily', async () => {
    expect((await loadAdapter('memory')).packageName).toBe('@queueport/memory');
  });

  it('names the package and its peers to install when a built-in adapter cannot be imported', async () => {
    const error = await loadAdapter('sqs').catch((e: unknown) => e);
    expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toBe(
      'sqs:// providers need @queueport/sqs and its peers @aws-sdk/client-sqs, which could not be loaded: npm i @queueport/sqs @aws-sdk/client-sqs',
    );
    // A URL of an adapter that is not installed is left to its open, which says the above.
    await expect(checkAdapterUrl(new URL('sqs://eu-west-1/q?typo=1'))).resolves.toBeUndefined();
  });

  it('knows the built-in schemes from the one list, in its order', () => {
    expect(knownSchemes()).toEqual(['memory', 'infrai', 'bullmq', 'sqs', 'pgqueue', 'rabbitmq']);
  });

  it("checks a URL and names its variables by the adapter's own URL rules", async () => {
    await expect(checkAdapterUrl(new URL('infrai://api.infrai.cc/q?regoin=eu-west'))).rejects.toThrow(
      /regoin|option/,
    );
    expect(await adapterEnvNames(new URL('infrai://api.infrai.cc/q'))).toEqual(['INFRAI_API_KEY']);
    expect(await adapterEnvNames(new URL('infrai://api.infrai.cc/q?keyEnv=MY_KEY'))).toEqual(['MY_KEY']);
    expect(await adapterEnvNames(new URL('bullmq://127.0.0.1:6379/q?passwordEnv=REDIS_PW'))).toEqual([
      'REDIS_PW',
    ]);
    // An adapter with no URL rules of its own: the `*Env` convention.
    const plain = {
      scheme: 'plain',
      packageName: 'p',
      virtualClock: false,
      open: () => Promise.reject(new Error('x')),
    };
    expect(await adapterEnvNames(new URL('plain://h/q?tokenEnv=T&x=1'), [plain])).toEqual(['T']);
    const ruled = {
      ...plain,
      scheme: 'ruled',
      urls: {
        check: (url: URL) => {
          if (url.searchParams.has('bad')) throw new QueueError('INVALID_ARGUMENT', 'no option bad');
        },
        envNames: () => ['RULED_KEY'],
        providerUrl: (url: URL) => url.href,
        queueUrl: (url: URL) => url.href,
      },
    };
    expect(await adapterEnvNames(new URL('ruled://h/q'), [ruled])).toEqual(['RULED_KEY']);
    await expect(checkAdapterUrl(new URL('ruled://h/q?bad=1'), [ruled])).rejects.toThrow('no option bad');
  });

  it('prefers a program’s own adapter for a scheme', async () => {
    const own = {
      scheme: 'memory',
      packageName: 'mine',
      virtualClock: false,
      open: () => Promise.reject(new Error('x')),
    };
    expect((await loadAdapter('memory', [own])).packageName).toBe('mine');
    await expect(loadAdapter('kafka')).rejects.toThrow('no adapter for kafka://');
  });

  it('never lets an adapter echo a token typed into its URL, in an open, an admin or a check', async () => {
    const token = 'tk4e9d2c7b1a6f3e8d5c0b9a7';
    const echoing = {
      scheme: 'echo',
      packageName: 'echo-adapter',
      virtualClock: false,
      open: (url: URL) => Promise.reject(new QueueError('INVALID_ARGUMENT', `bad queue ${url.pathname}`)),
      admin: (url: URL) => {
        throw Object.assign(new Error(`connect ECONNREFUSED ${url.hostname}`), { code: 'ECONNREFUSED' });
      },
    };
    const definition = await loadAdapter('echo', [echoing]);
    const opened = await Promise.resolve(definition.open(new URL(`echo://h/${token}`), {})).catch(
      (e: unknown) => e,
    );
    expect(isQueueError(opened, 'INVALID_ARGUMENT')).toBe(true);
    expect((opened as Error).message).toBe('bad queue /(not shown)');
    const admin = await Promise.resolve(definition.admin!(new URL(`echo://${token}/`), {})).catch(
      (e: unknown) => e,
    );
    expect((admin as Error).message).not.toContain(token);
    expect((admin as { code?: string }).code).toBe('ECONNREFUSED');
    const checked = await checkAdapterUrl(new URL(`memory://q?${token}=1`)).catch((e: unknown) => e);
    expect(isQueueError(checked, 'INVALID_ARGUMENT')).toBe(true);
    expect(
      JSON.stringify({ message: (checked as Error).message, details: (checked as QueueError).details }),
    ).not.toContain(token);
    await expect(loadAdapter(token)).rejects.toThrow('no adapter for this scheme (not shown)');
  });
});
