import type { QueueportConfig } from './config-types';

/** Types a `queueport.config.ts` (or checks a `.mjs` with // @ts-check): `export default defineConfig({ … })`. */
export function defineConfig(config: QueueportConfig): QueueportConfig {
  return config;
}
