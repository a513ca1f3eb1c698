// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ … }} are GitHub Actions expressions, not templates.
import { describe, expect, it } from 'vitest';
import { readYamlSubset } from '../src/tiny-yaml';

describe('the tiny YAML reader', () => {
  it('reads the subset workflows are written in, every scalar as a string', () => {
    const text = [
      '# a comment',
      'name: drill   # trailing comment',
      'on:',
      '  schedule:',
      "    - cron: '0 6 1 1,4,7,10 *'",
      '  workflow_dispatch:',
      'jobs:',
      '  drill:',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '      - name: "Run #1"',
      '        env:',
      '          KEY: ${{ secrets.KEY }}',
      '        run: |',
      '          echo one',
      '',
      '          echo "two" | tee out',
      '        with:',
      '          node-version: 20',
      "          quoted: 'it''s'",
      'list:',
      '- a',
      '- b',
    ].join('\n');
    expect(readYamlSubset(text)).toEqual({
      name: 'drill',
      on: { schedule: [{ cron: '0 6 1 1,4,7,10 *' }], workflow_dispatch: null },
      jobs: {
        drill: {
          steps: [
            { uses: 'actions/checkout@v4' },
            {
              name: 'Run #1',
              env: { KEY: '${{ secrets.KEY }}' },
              run: 'echo one\n\necho "two" | tee out\n',
              with: { 'node-version': '20', quoted: "it's" },
            },
          ],
        },
      },
      list: ['a', 'b'],
    });
  });

  it.each([
    ['a flow collection', 'runs-on: [ubuntu-latest]'],
    ['an anchor', 'env: &shared\n  A: b'],
    ['an alias', 'env: *shared'],
    ['a folded block', 'run: >\n  echo'],
    ['a duplicate key', 'env:\n  A: x\nenv:\n  B: y'],
    ['a tab', 'env:\n\tA: x'],
    ['bad indentation', 'a:\n    b: c\n  d: e'],
    ['an unterminated quote', "cron: '0 6 1"],
    ['several documents', 'a: b\n---\nc: d'],
  ])('refuses %s instead of misreading it', (_name, text) => {
    expect(() => readYamlSubset(text)).toThrow(/^line \d+: /);
  });
});
