import { readFile } from 'node:fs/promises';
import { createInfraiAdapter } from '@queueport/infrai';
import { DEFAULT_SIMULATOR_API_KEY, startInfraiSimulator } from '@queueport/infrai/testing';
import { sqsAdapter } from '@queueport/sqs';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { tempDir, testIo } from './support/test-io';
import { findAll, parseXml } from './support/xml-check';

/**
 * The drill exactly as examples/ci-quarterly-drill runs it, `queueport drill --junit <file>` with
 * a configuration file, against every built-in real-time provider here: BullMQ on Redis, SQS on
 * the local SQS server, the Infrai simulator over HTTP. Each with its default URL options, so a
 * provider that needs tuning to pass the suite fails here. In a file of its own: it takes minutes,
 * and vitest runs it beside the rest.
 */
const services = inject('queueportServices');
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'drillfull', AWS_SECRET_ACCESS_KEY: 'drillfull-secret' };
const KEY_ENV = 'DRILL_FULL_INFRAI_KEY';
/** The whole drill's bound here; it must stay far below the CI's own. */
const DRILL_BOUND_MS = 10 * 60_000;

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean().catch(() => undefined);
  cleanup = [];
});

describe('the full drill on every built-in provider, from a configuration file', () => {
  it.skipIf(!services.sqsEndpoint)(
    'passes on BullMQ, SQS and Infrai with default URLs, with valid JUnit and each provider timed',
    async () => {
      const run = Date.now().toString(36);
      const receiver = await startReferenceReceiver({ mode: 'idempotent' });
      cleanup.push(() => receiver.close());

      const simulator = await startInfraiSimulator();
      cleanup.push(() => simulator.close());
      const host = new URL(simulator.url).host;
      const infraiAdmin = await createInfraiAdapter({ apiKey: simulator.apiKey }).admin!(
        new URL(`infrai://${host}?tls=false`),
        {},
      );
      await infraiAdmin.createQueue({ name: 'drill' }).finally(() => infraiAdmin.close());

      const sqsAdmin = await sqsAdapter.admin!(new URL(`sqs://us-east-2?endpoint=${services.sqsEndpoint}`), {
        env: CREDENTIALS,
      });
      cleanup.push(() => sqsAdmin.close());
      const sqsQueue = await sqsAdmin.createQueue({ name: `drill-full-${run}` });
      cleanup.push(() => sqsAdmin.deleteQueue(sqsQueue));

      const redis = new URL(services.redisUrl);
      const dir = await tempDir({
        'queueport.config.json': {
          providers: {
            bullmq: { url: `bullmq://${redis.host}/drill-full-${run}` },
            sqs: { url: sqsQueue },
            infrai: { url: `infrai://${host}/drill?tls=false&keyEnv=${KEY_ENV}` },
          },
          ledger: { sqlite: 'ledger.db' },
          receiver: { url: receiver.url, allowInsecure: true },
        },
      });
      cleanup.push(dir.remove);
      const io = testIo({ cwd: dir.dir, env: { ...CREDENTIALS, [KEY_ENV]: DEFAULT_SIMULATOR_API_KEY } });

      const started = performance.now();
      const exit = await main(['drill', '--json', '--junit', 'drill-full.xml'], io);
      const tookMs = performance.now() - started;

      const report = JSON.parse(io.out()) as CommandReport;
      const failed = report.checks.filter((check) => check.status === 'failed');
      // The time notes say which provider and which property took long: shown with any failure.
      expect(
        failed.map((check) => `${check.provider} ${check.id}: ${check.detail}`),
        (report.notes ?? []).join('\n'),
      ).toEqual([]);
      expect(exit).toBe(EXIT.ok);
      expect(report.summary).toMatchObject({ providers: 3, providersPassed: 3, conformance: 'full' });
      for (const provider of ['bullmq', 'sqs', 'infrai']) {
        expect(
          report.checks.filter((c) => c.provider === provider && c.id === 'conformance.round-trip'),
        ).toEqual([expect.objectContaining({ status: 'passed' })]);
        expect(report.notes).toContainEqual(
          expect.stringMatching(new RegExp(`^${provider} took [0-9.]+ s `)),
        );
      }
      const xml = parseXml(await readFile(dir.file('drill-full.xml'), 'utf8'));
      expect(findAll(xml, 'testcase').length).toBe(report.checks.length);
      expect(tookMs).toBeLessThan(DRILL_BOUND_MS);
    },
    DRILL_BOUND_MS + 60_000,
  );
});
