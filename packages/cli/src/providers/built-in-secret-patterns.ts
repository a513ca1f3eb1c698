import { isModuleNotFound } from '@queueport/core/driver';
import { BUILT_IN_ADAPTERS } from './built-in-adapters';

let registering: Promise<void> | undefined;

/**
 * Loads the definition of every installed built-in adapter, so each one's `secretPatterns`
 * (registered by its `defineAdapter`) mask that provider's keys in every output from the first
 * line on, whichever provider the configuration uses: a run on one provider still masks a key
 * of another pasted into its configuration or environment. The light entries read without the
 * provider's SDK; a package that is not installed declares nothing to mask. Once per process.
 */
export function registerBuiltInSecretPatterns(): Promise<void> {
  registering ??= Promise.all(
    BUILT_IN_ADAPTERS.map((adapter) =>
      adapter.load().catch((error: unknown) => {
        if (!isModuleNotFound(error)) throw error;
      }),
    ),
  ).then(() => undefined);
  return registering;
}
