import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadedConfig, QueueportConfig } from './config-types';

/** Where the embedded defaults put their generated secrets, for `configEnv` and the redaction. */
export const EMBEDDED_INFRAI_KEY_ENV = 'QUEUEPORT_EMBEDDED_INFRAI_API_KEY';
export const EMBEDDED_RECEIVER_SECRET_ENV = 'QUEUEPORT_EMBEDDED_RECEIVER_SECRET';
export const EMBEDDED_QUEUE = 'drill';
/** What every report says when it ran on these defaults, so a forgotten --config never passes for a real answer. */
export const EMBEDDED_DEFAULTS_NOTE =
  'ran on the embedded defaults (in-process providers, a temporary ledger, a loopback receiver); add a queueport.config.json to use your own providers';
/** The embedded Infrai queue dead-letters after this many deliveries, so `dlq` has something to show. */
const EMBEDDED_REDRIVE_AFTER = 5;

/**
 * No configuration file: two providers (the memory driver and the Infrai simulator, in this
 * process), a SQLite ledger in a fresh temp folder and a loopback reference receiver. No server
 * to run, no credentials: the keys are generated here, passed on through `env`, and stopped
 * with everything else by `close()`.
 */
export async function startEmbeddedDefaults(): Promise<LoadedConfig> {
  const stops: (() => Promise<unknown>)[] = [];
  const close = once(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });
  try {
    const folder = await mkdtemp(path.join(tmpdir(), 'queueport-'));
    stops.push(() => rm(folder, { recursive: true, force: true }));

    const apiKey = `ifr_embedded_${randomBytes(16).toString('hex')}`;
    const receiverSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const [{ startInfraiSimulator }, { createInfraiAdapter }, { startReferenceReceiver }, { memoryAdapter }] =
      await Promise.all([
        import('@queueport/infrai/testing'),
        import('@queueport/infrai'),
        import('@queueport/webhook/reference-receiver'),
        import('@queueport/memory'),
      ]);

    const simulator = await startInfraiSimulator({ apiKeys: [apiKey] });
    stops.push(() => simulator.close());
    const infraiProvider = `infrai://${new URL(simulator.url).host}?tls=false&keyEnv=${EMBEDDED_INFRAI_KEY_ENV}`;
    const infraiAdmin = await createInfraiAdapter({ apiKey }).admin!(new URL(infraiProvider), {});
    const infraiQueue = await infraiAdmin
      .createQueue({ name: EMBEDDED_QUEUE, redriveAfterReceives: EMBEDDED_REDRIVE_AFTER })
      .finally(() => infraiAdmin.close());

    const receiver = await startReferenceReceiver({ mode: 'idempotent', secrets: [receiverSecret] });
    stops.push(() => receiver.close());

    // memory:// queues live per process: the next load (a test, a second command) starts empty.
    const memoryQueue = `memory://${EMBEDDED_QUEUE}`;
    stops.push(async () => {
      const admin = await memoryAdapter.admin!(new URL('memory://'), {});
      await admin.deleteQueue(memoryQueue).catch(() => undefined);
    });

    const config: QueueportConfig = {
      providers: { memory: { url: memoryQueue }, infrai: { url: infraiQueue } },
      ledger: { sqlite: path.join(folder, 'ledger.db') },
      receiver: { url: receiver.url, secretEnv: EMBEDDED_RECEIVER_SECRET_ENV, allowInsecure: true },
    };
    return {
      config,
      file: undefined,
      env: { [EMBEDDED_INFRAI_KEY_ENV]: apiKey, [EMBEDDED_RECEIVER_SECRET_ENV]: receiverSecret },
      referenceReceiver: receiver,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function once(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= run();
    return running;
  };
}
