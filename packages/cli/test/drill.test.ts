import { readFile } from 'node:fs/promises';
import { queueProperties } from '@queueport/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { QUICK_PROPERTY_IDS } from '../src/drill';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { checkOf } from './support/drill-world';
import { tempDir, testIo } from './support/test-io';
import { findAll, parseXml } from './support/xml-check';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean();
  cleanup = [];
});

const CANARY = ['canary.open', 'canary.publish', 'canary.consume', 'canary.deliver', 'canary.ledger'];

describe('queueport drill on the embedded defaults', () => {
  it('passes --quick with no configuration: JSON that parses, valid JUnit, every step timed', async () => {
    // An empty folder: no configuration file, so the embedded defaults (memory + Infrai simulator).
    const dir = await tempDir();
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });
    const junit = dir.file('drill.xml');

    const exit = await main(['drill', '--quick', '--json', '--junit', junit], io);

    const report = JSON.parse(io.out()) as CommandReport;
    expect(report.checks.filter((check) => check.status === 'failed')).toEqual([]);
    expect(exit).toBe(EXIT.ok);
    expect(report).toMatchObject({ command: 'drill', ok: true });
    expect(report.summary).toEqual({
      providers: 2,
      providersPassed: 2,
      providersFailed: 0,
      conformance: 'quick',
      'seconds.memory': expect.any(Number),
      'seconds.infrai': expect.any(Number),
    });
    // How long each provider took, and where: the line to read when a drill is slow.
    for (const provider of ['memory', 'infrai']) {
      expect(report.notes).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${provider} took [0-9.]+ s \\(canary [0-9.]+ s, conformance [0-9.]+ s, slowest conformance\\.[a-z-]+ [0-9.]+ s\\)$`,
          ),
        ),
      );
    }
    for (const provider of ['memory', 'infrai']) {
      for (const id of CANARY) {
        const check = checkOf(report, provider, id);
        expect(check.durationMs).toBeGreaterThanOrEqual(0);
        expect(check.status, `${provider} ${id}: ${check.detail}`).toBe('passed');
      }
      for (const id of QUICK_PROPERTY_IDS)
        expect(checkOf(report, provider, `conformance.${id}`).status).toBe('passed');
    }
    // Each adapter's own preflight, a row per check: Infrai's schema check; memory declares none.
    expect(checkOf(report, 'infrai', 'canary.preflight.schema-current')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/matches the snapshot/),
    });
    const preflightRows = (provider: string) =>
      report.checks.filter((check) => check.provider === provider && check.id.startsWith('canary.preflight'));
    expect(preflightRows('memory')).toEqual([]);
    expect(preflightRows('infrai').map((check) => check.id)).toEqual(['canary.preflight.schema-current']);
    expect(checkOf(report, 'memory', 'canary.deliver').detail).toMatch(/the receiver answered HTTP 200/);
    expect(checkOf(report, 'infrai', 'canary.ledger').detail).toMatch(/delivered after 1 attempt/);
    expect(report.notes?.join('\n')).toMatch(/embedded defaults/);

    const xml = parseXml(await readFile(junit, 'utf8'));
    const cases = findAll(xml, 'testcase');
    expect(cases.length).toBe(report.checks.length);
    expect(findAll(xml, 'failure')).toEqual([]);
    // --json keeps stderr free of progress; nothing secret reaches either stream.
    expect(`${io.out()}${io.err()}`).not.toMatch(/ifr_embedded_|whsec_/);
  });

  it('--skip-conformance runs the canary alone; --provider picks one provider', async () => {
    const dir = await tempDir();
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });

    const exit = await main(['drill', '--provider', 'memory', '--skip-conformance'], io);

    expect(exit).toBe(EXIT.ok);
    expect(io.out()).toMatch(/queueport drill: OK/);
    expect(io.out()).not.toMatch(/conformance\./);
    expect(io.out()).not.toMatch(/^\s+canary\.\w+\s+infrai/m);
    // Progress for people, on stderr.
    expect(io.err()).toMatch(/drill memory: canary\.publish passed/);
  });

  it('runs the whole suite without --quick (memory, on virtual time)', async () => {
    const dir = await tempDir();
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });

    const exit = await main(['drill', '--provider', 'memory', '--json'], io);

    expect(exit).toBe(EXIT.ok);
    const report = JSON.parse(io.out()) as CommandReport;
    expect(report.summary).toMatchObject({ providers: 1, conformance: 'full' });
    const properties = report.checks.filter((check) => check.id.startsWith('conformance.'));
    expect(properties.map((check) => check.id)).toEqual(queueProperties.map((p) => `conformance.${p.id}`));
  });

  it('refuses what it does not understand as a usage error (exit 2)', async () => {
    const dir = await tempDir();
    cleanup.push(dir.remove);
    for (const argv of [
      ['drill', '--provider', 'nope'],
      ['drill', '--quick', '--skip-conformance'],
      ['drill', '--timeout-ms', 'soon'],
      ['drill', '--bogus'],
    ]) {
      const io = testIo({ cwd: dir.dir });
      expect(await main(argv, io), argv.join(' ')).toBe(EXIT.usage);
      // A name not configured is a configuration matter: the hint to --help, not the usage line.
      expect(io.err()).toMatch(
        argv[1] === '--provider' ? /\(queueport drill --help for usage\)/ : /usage: queueport drill/,
      );
    }
  });
});
