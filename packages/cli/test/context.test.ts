import { isQueueError } from '@queueport/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCommandContext } from '../src/context';
import { UsageError } from '../src/errors';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

describe('createCommandContext', () => {
  it('opens a configured provider as a Queue with its admin, and closes what is left open', async () => {
    const url = `memory://${uniqueQueue('ctx')}`;
    const dir = await tempDir({ 'queueport.config.json': { providers: { main: { url } } } });
    cleanup.push(dir.remove);
    const context = createCommandContext(testIo({ cwd: dir.dir }));
    const provider = await context.openProvider('main');
    expect(provider).toMatchObject({ name: 'main', url, definition: { scheme: 'memory' } });
    await provider.queue.publish({ envelope: { event_id: 'e1', type: 't', payload: {} } });
    expect(await provider.admin?.stats(url)).toMatchObject({ depth: 1 });
    await context.close();
    await expect(provider.queue.receive()).rejects.toSatisfy((error) => isQueueError(error, 'CLOSED'));
  });

  it('names the configured providers for an unknown one', async () => {
    const dir = await tempDir({
      'queueport.config.json': { providers: { a: { url: 'memory://a' }, b: { url: 'memory://b' } } },
    });
    cleanup.push(dir.remove);
    const context = createCommandContext(testIo({ cwd: dir.dir }));
    await expect(context.openProvider('c')).rejects.toThrow(
      new UsageError('no provider named "c"; configured: a, b'),
    );
    await context.close();
  });

  it('surfaces a provider that cannot be opened as a QueueError, not a crash', async () => {
    const dir = await tempDir({
      'queueport.config.json': {
        providers: { gone: { url: 'infrai://127.0.0.1:9/q?tls=false&keyEnv=NO_SUCH_KEY' } },
      },
    });
    cleanup.push(dir.remove);
    const context = createCommandContext(testIo({ cwd: dir.dir }));
    const error = await context.openProvider('gone').catch((e: unknown) => e);
    expect(isQueueError(error, 'UNAUTHORIZED')).toBe(true);
    expect((error as Error).message).toContain('set NO_SUCH_KEY');
    await context.close();
  });

  it('opens the embedded Infrai simulator with its generated key, and the embedded ledger', async () => {
    const dir = await tempDir();
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });
    const context = createCommandContext(io);
    const infrai = await context.openProvider('infrai');
    await infrai.queue.publish({ envelope: { event_id: 'embedded_1', type: 't', payload: { n: 1 } } });
    const [delivery] = await infrai.queue.receive({ leaseSeconds: 5 });
    expect(delivery?.envelope.event_id).toBe('embedded_1');
    await delivery?.ack();
    const ledger = await context.openLedger();
    expect(await ledger.get('embedded_1')).toBeUndefined();
    const loaded = await context.config();
    const key = Object.values(loaded.env ?? {}).find((value) => value.startsWith('ifr_'))!;
    expect(context.redactor.text(`key ${key}`)).toBe('key [REDACTED]');
    await context.close();
    await expect(fetch(loaded.config.receiver!.url)).rejects.toThrow();
  });
});
