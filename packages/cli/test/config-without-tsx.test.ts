import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config/load-config';
import { ConfigError } from '../src/errors';
import { tempDir } from './support/test-io';

vi.mock('tsx/esm/api', () => {
  throw Object.assign(new Error("Cannot find package 'tsx'"), { code: 'ERR_MODULE_NOT_FOUND' });
});

describe('a TypeScript configuration without tsx', () => {
  it('says clearly that tsx is missing and how to get it', async () => {
    const dir = await tempDir({ 'queueport.config.ts': 'export default { providers: {} };\n' });
    try {
      const error = await loadConfig({ cwd: dir.dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toBe(
        `${dir.file('queueport.config.ts')}: is TypeScript, which needs tsx to load: npm i -D tsx (or write queueport.config.json / .mjs)`,
      );
    } finally {
      await dir.remove();
    }
  });
});
