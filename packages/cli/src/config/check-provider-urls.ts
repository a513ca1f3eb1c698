import { isQueueError } from '@queueport/core';
import type { AdapterDefinition } from '@queueport/core/driver';
import { checkAdapterUrl } from '../providers/known-adapters';
import { withoutUrlSecrets } from '../providers/url-words';
import { ConfigField } from './config-field';
import type { QueueportConfig } from './config-types';

/**
 * Every provider URL through its adapter's own parser, connecting to nothing: an option the
 * adapter does not take (`prefx=`), a value it refuses, a queue name it cannot have, all found
 * when the configuration is loaded (exit 2), not when a command opens the provider after a
 * canary was published. An adapter that declares no URL rules is left to its open.
 */
export async function checkProviderUrls(
  config: QueueportConfig,
  file: string | undefined,
  adapters: readonly AdapterDefinition[] = [],
): Promise<void> {
  const root = new ConfigField(file, 'providers');
  for (const [name, provider] of Object.entries(config.providers)) {
    const url = new URL(provider.url);
    try {
      await checkAdapterUrl(url, adapters);
    } catch (error) {
      if (!isQueueError(error) || error.code !== 'INVALID_ARGUMENT') throw error;
      throw root.child(name).child('url').error(withoutUrlSecrets(error.message, url));
    }
  }
}
