import { readFile } from 'node:fs/promises';
import { sqsAdapter } from '@queueport/sqs';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { CommandReport } from '../src/report/report-types';
import { spawnCli } from './support/spawn-cli';
import { listQueues } from './support/sqs-listing';
import { tempDir } from './support/test-io';
import { findAll, parseXml } from './support/xml-check';

const services = inject('queueportServices');
// A region no other test uses, so every conformance-* queue in it is this drill's.
const REGION = 'ca-central-1';
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'drilltest', AWS_SECRET_ACCESS_KEY: 'drilltest-secret' };

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean().catch(() => undefined);
  cleanup = [];
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('queueport drill stopped by SIGINT mid-run', () => {
  const endpoint = services.sqsEndpoint;
  it.skipIf(!endpoint)(
    'deletes its scratch queues, writes the partial report and JUnit, and exits 130',
    async () => {
      const sqsUrl = `sqs://${REGION}?endpoint=${endpoint}`;
      const receiver: ReferenceReceiver = await startReferenceReceiver({ mode: 'idempotent' });
      cleanup.push(() => receiver.close());
      const admin = await sqsAdapter.admin!(new URL(sqsUrl), { env: CREDENTIALS });
      cleanup.push(() => admin.close());
      const queue = await admin.createQueue({ name: `drill-interrupt-${Date.now()}` });
      cleanup.push(() => admin.deleteQueue(queue));
      const dir = await tempDir({
        'queueport.config.json': {
          providers: { sqs: { url: queue } },
          ledger: { sqlite: 'ledger.db' },
          receiver: { url: receiver.url, allowInsecure: true },
        },
      });
      cleanup.push(dir.remove);
      const scratch = () => listQueues(endpoint!, REGION, 'conformance-');
      expect(await scratch()).toEqual([]);

      const cli = spawnCli(['drill', '--json', '--junit', 'drill.xml'], { cwd: dir.dir, env: CREDENTIALS });
      const killer = setTimeout(() => cli.child.kill('SIGKILL'), 120_000);
      cleanup.push(async () => clearTimeout(killer));
      // Mid-run: the suite has made a scratch queue on the provider.
      const made = await until(
        'a scratch queue on the provider',
        async () => {
          const listed = await scratch();
          return listed.length > 0 ? listed : undefined;
        },
        90_000,
      );
      expect(made.length).toBeGreaterThan(0);
      cli.child.kill('SIGINT');
      const exit = await cli.exited;

      expect(exit, `stderr: ${cli.stderr()}`).toMatchObject({ code: 130, signal: null });
      expect(await scratch()).toEqual([]);
      const report = JSON.parse(cli.stdout()) as CommandReport;
      expect(report.ok).toBe(false);
      expect(report.notes?.join('\n')).toMatch(/^interrupted: /m);
      expect(report.checks.find((check) => check.id === 'canary.ledger')?.status).toBe('passed');
      const skipped = report.checks.filter((check) => check.detail === 'not run: the drill was interrupted');
      expect(skipped.length).toBeGreaterThan(0);
      const xml = parseXml(await readFile(dir.file('drill.xml'), 'utf8'));
      expect(findAll(xml, 'testcase').length).toBe(report.checks.length);
      expect(cli.stderr()).toMatch(/SIGINT: stopping; cleaning up/);
    },
    150_000,
  );
});
