import { registeredSecretPatterns } from '@queueport/core/driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main';
import { tempDir, testIo } from './support/test-io';

// Formats two built-in adapters declare (Infrai's key, AWS's access key id); neither is configured.
// No digits: by shape alone they read as ordinary words, so only the declared patterns catch them.
const PLANTED = ['ifr_plantedmemoryonlykey', 'AKIAPLANTEDMEMORYQQQ'];

let dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
beforeAll(async () => {
  dirs = await Promise.all(
    PLANTED.map((secret) =>
      tempDir({
        'queueport.config.json': { providers: { memory: { url: `memory://orders?ordering=${secret}` } } },
      }),
    ),
  );
});
afterAll(() => Promise.all(dirs.map((dir) => dir.remove())));

describe('the secret patterns of every installed built-in adapter', () => {
  it('are known to a run whose configuration uses only memory://', async () => {
    // Nothing in this file loaded those adapters: main registers their patterns itself.
    for (const secret of PLANTED) {
      expect(registeredSecretPatterns().some((pattern) => pattern.test(secret))).toBe(false);
    }
    for (const [index, secret] of PLANTED.entries()) {
      for (const extra of [[], ['--json']]) {
        const io = testIo({ cwd: dirs[index]!.dir, env: {} });
        await main([...extra, 'dlq', 'list', '--provider', 'memory'], io);
        const output = io.out() + io.err();
        expect(output).not.toContain(secret);
        // Refused as a secret written into the file, not as a mistyped option value.
        expect(output, output).toContain('looks like a secret (not shown)');
      }
    }
  });
});
