import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SECRET_PREFIX as SIGNING_SECRET_PREFIX } from '@queueport/webhook';
import { BUILT_IN_ADAPTERS } from '../providers/built-in-adapters';
import type { LoadedConfig, QueueportConfig } from './config-types';

/** Where the embedded defaults put the receiver's generated secret, for `configEnv` and the redaction. */
export const EMBEDDED_RECEIVER_SECRET_ENV = 'QUEUEPORT_EMBEDDED_RECEIVER_SECRET';
export const EMBEDDED_QUEUE = 'drill';
/** What every report says when it ran on these defaults, so a forgotten --config never passes for a real answer. */
export const EMBEDDED_DEFAULTS_NOTE =
  'ran on the embedded defaults (in-process providers, a temporary ledger, a loopback receiver); add a queueport.config.json to use your own providers';

/**
 * No configuration file: every built-in adapter that can run in this process does (each a
 * provider named by its scheme), with a SQLite ledger in a fresh temp folder and a loopback
 * reference receiver. No server to run, no credentials: the keys are generated here, passed on
 * through `env`, and stopped with everything else by `close()`.
 */
export async function startEmbeddedDefaults(): Promise<LoadedConfig> {
  const stops: (() => Promise<unknown>)[] = [];
  const close = once(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });
  try {
    const folder = await mkdtemp(path.join(tmpdir(), 'queueport-'));
    stops.push(() => rm(folder, { recursive: true, force: true }));

    const providers: QueueportConfig['providers'] = {};
    const env: Record<string, string> = {};
    for (const adapter of BUILT_IN_ADAPTERS) {
      if (!adapter.embedded) continue;
      const provider = await adapter.embedded(EMBEDDED_QUEUE);
      stops.push(() => provider.close());
      providers[adapter.scheme] = { url: provider.url };
      Object.assign(env, provider.env);
    }

    const receiverSecret = `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
    const { startReferenceReceiver } = await import('@queueport/webhook/reference-receiver');
    const receiver = await startReferenceReceiver({ mode: 'idempotent', secrets: [receiverSecret] });
    stops.push(() => receiver.close());

    const config: QueueportConfig = {
      providers,
      ledger: { sqlite: path.join(folder, 'ledger.db') },
      receiver: { url: receiver.url, secretEnv: EMBEDDED_RECEIVER_SECRET_ENV, allowInsecure: true },
    };
    return {
      config,
      file: undefined,
      env: { ...env, [EMBEDDED_RECEIVER_SECRET_ENV]: receiverSecret },
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
