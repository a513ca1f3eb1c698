import {
  importWithPeers,
  installLine,
  isModuleNotFound,
  isQueueError,
  missingPeerError,
  type QueueError,
  queueLocator,
  requireQueueName,
} from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

const adapter = { scheme: 'kafka', packageName: '@acme/queueport-kafka', peers: ['kafkajs'] };
const notFound = (code: string) => Object.assign(new Error("Cannot find package 'kafkajs'"), { code });

describe('importWithPeers', () => {
  it('turns a module that is not installed into a QueueError naming the install line', async () => {
    const error = await importWithPeers(adapter, () =>
      Promise.reject(notFound('ERR_MODULE_NOT_FOUND')),
    ).catch((e: unknown) => e);
    expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as QueueError).message).toBe(
      'kafka:// providers need @acme/queueport-kafka and its peers kafkajs, which could not be loaded: npm i @acme/queueport-kafka kafkajs',
    );
    expect((error as QueueError).details).toEqual({
      scheme: 'kafka',
      packageName: '@acme/queueport-kafka',
      peers: ['kafkajs'],
    });
  });

  it('finds the code a few causes down (bundlers wrap it), and passes any other failure through', async () => {
    const wrapped = new Error('load failed', { cause: notFound('MODULE_NOT_FOUND') });
    expect(isModuleNotFound(wrapped)).toBe(true);
    await expect(importWithPeers(adapter, () => Promise.reject(wrapped))).rejects.toThrow('npm i');
    const other = new SyntaxError('Unexpected token');
    await expect(importWithPeers(adapter, () => Promise.reject(other))).rejects.toBe(other);
    await expect(importWithPeers(adapter, async () => ({ ok: 1 }))).resolves.toEqual({ ok: 1 });
  });

  it('says no peers where there are none', () => {
    expect(installLine({ ...adapter, peers: [] })).toBe('npm i @acme/queueport-kafka');
    expect(missingPeerError({ scheme: 'x', packageName: 'x-adapter' }).message).toBe(
      'x:// providers need x-adapter, which could not be loaded: npm i x-adapter',
    );
  });
});

describe('requireQueueName and queueLocator', () => {
  it('refuses a URL that names no queue where a driver is opened', () => {
    expect(() => requireQueueName('kafka', '', 'kafka://broker/orders')).toThrow(
      'kafka:// URLs name their queue: kafka://broker/orders',
    );
    expect(() => requireQueueName('kafka', 'orders', 'kafka://broker/orders')).not.toThrow();
  });

  const parse = (url: URL) => ({ host: url.host, queueName: url.pathname.slice(1) });
  const locate = queueLocator({
    scheme: 'kafka',
    parse,
    provider: parse(new URL('kafka://broker-a')),
    sameProvider: (queue, provider) => queue.host === provider.host,
    providerNoun: 'cluster',
  });

  it("reads a queue at the admin's own provider", () => {
    expect(locate('kafka://broker-a/orders')).toEqual({ host: 'broker-a', queueName: 'orders' });
  });

  it.each([
    ['not a URL', 'orders', 'the admin names queues by their kafka:// URL'],
    ['another scheme', 'sqs://eu-west-1/orders', 'the admin names queues by their kafka:// URL'],
    ['another provider', 'kafka://broker-b/orders', "that URL names no queue on this admin's cluster"],
    ['a provider URL', 'kafka://broker-a', "that URL names no queue on this admin's cluster"],
  ])('refuses %s, never quoting it', (_what, queue, message) => {
    const error = (() => {
      try {
        locate(queue);
      } catch (e) {
        return e;
      }
    })();
    expect(isQueueError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toBe(message);
    expect((error as QueueError).details).toEqual({ field: 'url' });
  });
});
