import { describe, expect, it } from 'vitest';
import { parseGlobalFlags } from '../src/global-flags';
import { providerUrlOf } from '../src/providers/provider-url';
import { formatHuman } from '../src/report/human';
import { formatJunit } from '../src/report/junit';
import { Redactor } from '../src/report/redact-output';
import type { CommandReport } from '../src/report/report-types';
import { findAll, parseXml } from './support/xml-check';

const report: CommandReport = {
  command: 'drill',
  ok: false,
  startedAt: '2026-12-01T00:00:00.000Z',
  durationMs: 1234,
  checks: [
    {
      id: 'canary.publish',
      title: 'publish the canary',
      provider: 'primary',
      status: 'passed',
      durationMs: 12.4,
      detail: 'published',
    },
    {
      id: 'canary.receive',
      title: 'receive <it> & "ack" it',
      provider: 'primary',
      status: 'failed',
      durationMs: 1500,
      detail: "timed out ]]> after 1.5 s\nsecond line with \u0001 control and 'quotes'",
    },
    { id: 'ledger.open', title: 'open the ledger', status: 'skipped', durationMs: 0, detail: 'no ledger' },
    { id: 'canary.publish', title: 'publish the canary', provider: 'next', status: 'passed', durationMs: 3 },
  ],
  summary: { published: 2, 'ledger rows': 'none' },
  notes: ['run again with --seed 4'],
};

describe('JUnit', () => {
  it('is well-formed, one suite per provider, a testcase per check, times in seconds, escaped', () => {
    const root = parseXml(formatJunit(report));
    expect(root.attributes).toMatchObject({
      name: 'queueport drill',
      tests: '4',
      failures: '1',
      skipped: '1',
      time: '1.234',
    });
    expect(findAll(root, 'testsuite').map((s) => [s.attributes.name, s.attributes.tests])).toEqual([
      ['drill (primary)', '2'],
      ['drill', '1'],
      ['drill (next)', '1'],
    ]);
    const cases = findAll(root, 'testcase');
    expect(cases.map((c) => c.attributes.time)).toEqual(['0.012', '1.500', '0.000', '0.003']);
    expect(cases[1]?.attributes.name).toBe('canary.receive: receive <it> & "ack" it');
    const [failure] = findAll(root, 'failure');
    expect(failure?.attributes.message).toBe('timed out ]]> after 1.5 s');
    expect(failure?.text).toBe("timed out ]]> after 1.5 s\nsecond line with \uFFFD control and 'quotes'");
    expect(findAll(root, 'skipped')[0]?.attributes.message).toBe('no ledger');
    expect(findAll(root, 'property').map((p) => [p.attributes.name, p.attributes.value])).toEqual([
      ['published', '2'],
      ['ledger rows', 'none'],
    ]);
    expect(findAll(root, 'system-out')[0]?.text).toBe('run again with --seed 4');
  });

  it('has a suite even for a report without checks', () => {
    const root = parseXml(formatJunit({ ...report, checks: [], summary: undefined, notes: undefined }));
    expect(findAll(root, 'testsuite')).toHaveLength(1);
  });
});

describe('the human table', () => {
  it('aligns check, provider, status and latency, and prints failures in full', () => {
    const text = formatHuman(report, { color: false });
    const lines = text.split('\n');
    expect(lines[0]).toBe('queueport drill: FAILED (2 passed, 1 failed, 1 skipped) in 1.2 s');
    const header = lines.find((line) => line.includes('check'))!;
    expect(header).toMatch(/^ {2}check\s+provider\s+status\s+latency\s+detail$/);
    const row = lines.find((line) => line.includes('canary.receive'))!;
    expect(row.indexOf('failed')).toBe(header.indexOf('status'));
    expect(row).toContain('1500 ms');
    // A failed row's detail is its message's first line (the whole message follows the table).
    expect(row.slice(header.indexOf('detail'))).toBe('timed out ]]> after 1.5 s');
    expect(text).toContain(
      '✗ canary.receive (primary): receive <it> & "ack" it\n    timed out ]]> after 1.5 s\n    second line',
    );
    expect(text).not.toContain('\x1b[');
  });

  it('colours the statuses without moving the columns', () => {
    const plain = formatHuman(report, { color: false });
    const coloured = formatHuman(report, { color: true });
    expect(coloured).toContain('\x1b[31mfailed');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping the escapes is the point
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(plain);
  });
});

describe('the redactor', () => {
  it('masks secret-looking variables, in every escaped form, and leaves the rest alone', () => {
    const redactor = new Redactor({
      API_TOKEN: 'a&b<"c>/d e',
      HOME: '/home/someone',
      SHORT_KEY: 'abc',
      FLAG_SECRET: 'true',
    });
    const secret = 'a&b<"c>/d e';
    for (const form of [
      secret,
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
      'a&amp;b&lt;&quot;c&gt;/d e',
    ]) {
      expect(redactor.text(`x ${form} y`)).toBe('x [REDACTED] y');
    }
    expect(redactor.text('/home/someone abc true')).toBe('/home/someone abc true');
  });

  it('masks the variables the configuration names, a URL password alone, and a bare signing secret', () => {
    const bare = Buffer.from('x'.repeat(30)).toString('base64');
    const redactor = new Redactor();
    redactor.addConfig(
      {
        config: {
          providers: { p: { url: 'bullmq://127.0.0.1:6379/q?passwordEnv=REDIS_PW' } },
          ledger: { postgresUrlEnv: 'DB' },
          receiver: { url: 'https://r.example', secretEnv: 'SIGN' },
        },
        file: undefined,
        env: { GENERATED: 'generated-value-1' },
        close: async () => {},
      },
      {
        REDIS_PW: 'redis-pw-77',
        DB: 'postgres://u:db%2Fpw@h/d',
        SIGN: `whsec_${bare}`,
        OTHER: 'visible-value',
      },
    );
    expect(redactor.text('redis-pw-77 db/pw db%2Fpw generated-value-1 visible-value')).toBe(
      '[REDACTED] [REDACTED] [REDACTED] [REDACTED] visible-value',
    );
    expect(redactor.text(`sig ${bare}`)).toBe('sig [REDACTED]');
    expect(redactor.report({ ...report, notes: ['redis-pw-77'] }).notes).toEqual(['[REDACTED]']);
  });
});

describe('command-line plumbing', () => {
  it('takes global flags before or after the command, up to --', () => {
    expect(
      parseGlobalFlags(
        ['--json', 'dlq', 'list', '--junit=out.xml', '--provider', 'p', '--config', 'c.json'],
        'u',
      ),
    ).toMatchObject({
      command: 'dlq',
      json: true,
      junitPath: 'out.xml',
      configPath: 'c.json',
      rest: ['list', '--provider', 'p'],
    });
    expect(parseGlobalFlags(['ledger', 'show', '--', '--json'], 'u')).toMatchObject({
      json: false,
      rest: ['show', '--', '--json'],
    });
    expect(parseGlobalFlags(['drill', '--help'], 'u')).toMatchObject({ help: false, commandHelp: true });
  });

  it("takes a provider's URL without its queue by the adapter's own rules, options kept", async () => {
    const [{ memoryAdapter }, { infraiAdapter }, { sqsAdapter }, { bullmqAdapter }] = await Promise.all([
      import('@queueport/memory'),
      import('@queueport/infrai'),
      import('@queueport/sqs'),
      import('@queueport/bullmq'),
    ]);
    // memory:// names its queue by the host: only its own rules know that.
    expect(providerUrlOf('memory://drill?maxReceives=3', memoryAdapter)).toBe('memory://?maxReceives=3');
    expect(providerUrlOf('infrai://127.0.0.1:4010/drill?tls=false&keyEnv=K', infraiAdapter)).toBe(
      'infrai://127.0.0.1:4010?tls=false&keyEnv=K',
    );
    expect(providerUrlOf('sqs://eu-west-1/payments.fifo', sqsAdapter)).toBe('sqs://eu-west-1');
    expect(providerUrlOf('bullmq://127.0.0.1:6379/payments?db=2', bullmqAdapter)).toBe(
      'bullmq://127.0.0.1:6379?db=2',
    );
    // An adapter that declares no URL rules: the URL without its path.
    expect(providerUrlOf('other://host/q?x=1')).toBe('other://host?x=1');
  });
});
