import { DEFAULT_SIMULATOR_API_KEY } from '@queueport/infrai/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import {
  attributeDroppingAdapter,
  checkOf,
  type DrillWorld,
  driftedDiscovery,
  KEY_ENV,
  startDrillWorld,
} from './support/drill-world';
import { testIo, uniqueQueue } from './support/test-io';

let world: DrillWorld;
beforeEach(async () => {
  world = await startDrillWorld();
});
afterEach(async () => {
  await world.close();
});

const LATER = ['canary.publish', 'canary.consume', 'canary.deliver', 'canary.ledger'];

function expectSkippedAfter(report: CommandReport, provider: string, steps = LATER): void {
  for (const id of steps) {
    expect(checkOf(report, provider, id)).toMatchObject({
      status: 'skipped',
      detail: 'an earlier step failed',
    });
  }
}

describe('queueport drill fails, saying why, when', () => {
  it('a provider is misconfigured: a bad option, an unknown scheme, a missing queue, not a URL', async () => {
    const { url } = await world.infrai();
    const missing = url.replace('/drill?', '/no-such-queue?');
    const { report } = await world.drill({
      'bad-option': `memory://${uniqueQueue('drill')}?retention=forever`,
      'unknown-scheme': 'kafka://broker:9092/payments',
      'missing-queue': missing,
      'not-a-url': 'payments queue',
      fine: `memory://${uniqueQueue('drill')}`,
    });

    expect(report.ok).toBe(false);
    expect(report.summary).toMatchObject({ providers: 5, providersPassed: 1, providersFailed: 4 });
    expect(checkOf(report, 'bad-option', 'canary.open')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^misconfigured URL: memory:\/\/ URLs take no option "retention"/),
    });
    expect(checkOf(report, 'unknown-scheme', 'canary.open')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^unknown scheme: no adapter for kafka:\/\/; known: memory:\/\/, infrai:\/\//,
      ),
    });
    expect(checkOf(report, 'missing-queue', 'canary.open')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^the queue does not exist: .*no-such-queue/),
    });
    expect(checkOf(report, 'not-a-url', 'canary.open')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^misconfigured URL: the provider's URL is not a URL/),
    });
    // Discovery needs no queue: Infrai's preflight still checks the schema, and it is fine.
    expect(checkOf(report, 'missing-queue', 'canary.preflight.schema-current').status).toBe('passed');
    for (const provider of ['bad-option', 'unknown-scheme', 'missing-queue', 'not-a-url']) {
      expectSkippedAfter(report, provider);
    }
    for (const id of LATER) expect(checkOf(report, 'fine', id).status).toBe('passed');
    expect(report.notes).toContain(
      'failed: bad-option at canary.open, unknown-scheme at canary.open, missing-queue at canary.open, not-a-url at canary.open',
    );
  });

  it('its credentials are refused (the simulator knows another key), and no key is printed', async () => {
    const { url } = await world.infrai({ apiKeys: ['ifr_someone_elses_key'] });

    const { report, io } = await world.drill({ infrai: url });

    expect(report.ok).toBe(false);
    const open = checkOf(report, 'infrai', 'canary.open');
    expect(open).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^credentials refused: /) });
    expectSkippedAfter(report, 'infrai');
    expect(JSON.stringify(report) + io.err()).not.toContain(DEFAULT_SIMULATOR_API_KEY);
  });

  it('its key is not set at all: a configuration error before any canary is published', async () => {
    const { url } = await world.infrai();

    await expect(world.drill({ infrai: url.replace(KEY_ENV, 'DRILL_TEST_UNSET_KEY') })).rejects.toMatchObject(
      {
        name: 'ConfigError',
        message: expect.stringMatching(
          /names the environment variable DRILL_TEST_UNSET_KEY, which is not set/,
        ),
      },
    );
  });

  it('its schema drifted, field by field, and the suite is not run on it', async () => {
    const { url } = await world.infrai({ discovery: driftedDiscovery });

    const { report } = await world.drill({ infrai: url }, ['--quick']);

    expect(report.ok).toBe(false);
    expect(checkOf(report, 'infrai', 'canary.open').status).toBe('passed');
    const schema = checkOf(report, 'infrai', 'canary.preflight.schema-current');
    expect(schema.status).toBe('failed');
    expect(schema.detail).toMatch(
      /^schema drifted: discovery at http:\/\/127\.0\.0\.1:\d+ differs from the snapshot/,
    );
    expect(schema.detail).toContain('queue.publish request priority: type changed integer → string');
    expect(schema.detail).toContain('queue.publish request expires_at: field added (string, optional)');
    expectSkippedAfter(report, 'infrai');
    expect(checkOf(report, 'infrai', 'conformance')).toMatchObject({
      status: 'skipped',
      detail: expect.stringMatching(/^not run: the canary failed at canary\.preflight\.schema-current/),
    });
  });

  it('the receiver refuses the canary: the ledger records the failure, the queue keeps nothing', async () => {
    await world.close();
    world = await startDrillWorld({ respond: () => 503 });
    const queue = uniqueQueue('drill');

    const { report } = await world.drill({ memory: `memory://${queue}` });

    expect(report.ok).toBe(false);
    expect(checkOf(report, 'memory', 'canary.consume').status).toBe('passed');
    expect(checkOf(report, 'memory', 'canary.deliver')).toMatchObject({
      status: 'failed',
      detail: 'receiver refused: it answered HTTP 503; the ledger records the canary as failed',
    });
    expectSkippedAfter(report, 'memory', ['canary.ledger']);
    const eventId = /published (\S+)/.exec(checkOf(report, 'memory', 'canary.publish').detail!)![1]!;
    const ledger = await world.ledger();
    try {
      expect((await ledger.get(eventId))?.state).toBe('failed');
    } finally {
      await ledger.close();
    }
    // One attempt, then given up: nothing stays behind for the application's own worker.
    expect(world.receiver.requests()).toBe(1);
    const again = await world.drill({ memory: `memory://${queue}` });
    expect(checkOf(again.report, 'memory', 'canary.consume').detail).not.toMatch(/other message/);
  });

  it('a step outlasts --timeout-ms: opening, or receiving', async () => {
    const slowOpen = await world.infrai();
    slowOpen.simulator.faults.inject({ kind: 'slow', delayMs: 1500, capability: 'queue.list' });
    const slowReceive = await world.infrai();
    slowReceive.simulator.faults.inject({
      kind: 'slow',
      delayMs: 1500,
      capability: 'queue.consume',
      count: 10,
    });

    const { report } = await world.drill({ open: slowOpen.url, receive: slowReceive.url }, [
      '--skip-conformance',
      '--timeout-ms',
      '300',
    ]);

    expect(checkOf(report, 'open', 'canary.open')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^no answer within 300 ms while opening the provider/),
    });
    expect(checkOf(report, 'receive', 'canary.publish').status).toBe('passed');
    expect(checkOf(report, 'receive', 'canary.consume')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^no answer within 300 ms while receiving/),
    });
  });

  it('a conformance property fails: the counterexample and a replay are in the report', async () => {
    const { report } = await world.drill({ lossy: `lossy://${uniqueQueue('drill')}` }, ['--quick'], {
      adapters: [await attributeDroppingAdapter()],
    });

    expect(report.ok).toBe(false);
    expect(checkOf(report, 'lossy', 'canary.ledger').status).toBe('passed');
    const roundTrip = checkOf(report, 'lossy', 'conformance.round-trip');
    expect(roundTrip.status).toBe('failed');
    expect(roundTrip.detail).toMatch(/^round-trip failed on lossy after \d+ run\(s\): /);
    expect(roundTrip.detail).toMatch(/counterexample: /);
    expect(roundTrip.detail).toMatch(
      /replay: queueport conformance --provider lossy --seed \d+ .*--only round-trip/,
    );
    expect(report.summary).toMatchObject({ providersFailed: 1 });
    expect(report.notes).toContain('failed: lossy at conformance.round-trip');
  });

  it('the receiver is plain HTTP on loopback and not allowed as insecure: the SSRF guard says so', async () => {
    const { report } = await world.drill({ memory: `memory://${uniqueQueue('drill')}` }, undefined, {
      receiver: { url: world.receiver.url },
    });

    expect(checkOf(report, 'memory', 'canary.deliver')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^receiver refused before sending: .*needs receiver\.allowInsecure/),
    });
    expect(world.receiver.connections()).toBe(0);
  });

  it('no receiver is configured: a configuration error before any canary is published', async () => {
    const queue = uniqueQueue('drill');
    await expect(
      world.drill({ memory: `memory://${queue}` }, undefined, { receiver: undefined }),
    ).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/the drill delivers its synthetic event to a receiver/),
    });
  });

  it('through main, from a configuration file: exit 1 and the reason in the JSON report', async () => {
    const { url } = await world.infrai({ apiKeys: ['ifr_someone_elses_key'] });
    const dir = world.dir;
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      `${dir}/queueport.config.json`,
      JSON.stringify({
        providers: { infrai: { url } },
        ledger: { sqlite: 'ledger.db' },
        receiver: { url: world.receiver.url, allowInsecure: true },
      }),
    );
    const io = testIo({ cwd: dir, env: { [KEY_ENV]: DEFAULT_SIMULATOR_API_KEY } });

    const exit = await main(['drill', '--json'], io);

    expect(exit).toBe(EXIT.failed);
    const report = JSON.parse(io.out()) as CommandReport;
    expect(checkOf(report, 'infrai', 'canary.open').detail).toMatch(/^credentials refused: /);
    expect(io.out()).not.toContain(DEFAULT_SIMULATOR_API_KEY);
  });
});
