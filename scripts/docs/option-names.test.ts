import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../package-check/workspace-packages';
import { optionMentions, unknownOptions } from './option-names';
import { publicApi } from './public-api';

// A backticked option name in a package README must be a name the package's exported types have
// (or a query option of its URL grammar): the rule, and what counts as an option name, are
// written out in option-names.ts. A renamed option then fails here instead of living on in the docs.

describe('README option names: what counts as one', () => {
  it('reads the first cell of an options table, and only of an options table', () => {
    const text = [
      '| Option | Default | Meaning |',
      '| --- | --- | --- |',
      '| `leaseSeconds` | 30 | a `notAnOption` in the meaning |',
      '| `a`, `b.c` | none | two, one a path |',
      '',
      '| Call | What it does |',
      '| --- | --- |',
      '| `publishBatch` | not an option |',
    ].join('\n');
    expect(optionMentions('X.md', text).map((m) => [m.line, m.name, m.how])).toEqual([
      [3, 'leaseSeconds', 'table'],
      [4, 'a', 'table'],
      [4, 'b.c', 'table'],
    ]);
  });

  it('reads the sentences that name an option, and leaves other code alone', () => {
    const text = [
      "Set the `retry` option, or options `maxAttempts` and `baseMs`; the consumer's `maxDeliveries` decides.",
      'Call `queue.publish()` or `openQueue`; `MAX_BODY_BYTES` and `Queue` are no options.',
      '```ts',
      'const options = { `inCode`: 1 };',
      '```',
      '<!-- the `hidden` option -->',
    ].join('\n');
    expect(optionMentions('X.md', text).map((m) => m.name)).toEqual([
      'baseMs',
      'maxAttempts',
      'maxDeliveries',
      'retry',
    ]);
  });
});

describe('README option names: every package README', () => {
  it('names only options the package has', () => {
    const api = publicApi(ROOT);
    const read = (pkg: { dir: string }) => {
      const file = path.join(ROOT, pkg.dir, 'README.md');
      return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    };
    const { unknown, mentions } = unknownOptions(api, read);
    // The rule finds the options tables of the adapters and the suite's runner options.
    for (const [readme, name] of [
      ['packages/memory/README.md', 'nativeMaxDelaySeconds'],
      ['packages/bullmq/README.md', 'passwordEnv'],
      ['packages/sqs/README.md', 'defaultGroupId'],
      ['packages/infrai/README.md', 'keyEnv'],
      ['conformance/README.md', 'propertyTimeoutMs'],
    ]) {
      expect(
        mentions.some((m) => m.readme === readme && m.name === name),
        `${readme} ${name}`,
      ).toBe(true);
    }
    expect(
      unknown.map(
        (u) => `${u.readme}:${u.line} \`${u.name}\` (${u.how}) is not in ${u.pkg}'s exported types`,
      ),
    ).toEqual([]);
  }, 180_000);
});
