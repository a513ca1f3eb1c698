import {
  type DriverUnderTest,
  formatReport,
  missingQueue,
  roundTrip,
  runConformance,
  virtualTimeHarness,
} from '@queueport/conformance';
import { AdapterRegistry, openQueue, Queue, QueueError } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkDiscovery,
  createInfraiAdapter,
  type DiscoverySnapshot,
  driftReport,
  formatDrift,
  type InfraiCall,
  InfraiDriver,
} from '../src';
import { startInfraiSimulator } from '../src/testing';
import { callCapability } from '../src/testing/raw-client';
import { event, type Fixture, rawCreate, startFixture } from './support/infrai-fixture';
import { failure, SecretScan } from './support/secret-scan';

// A distinctive project key, shaped as Infrai's are, and a wrong one: neither may appear in
// anything the adapter, the Queue, a consumer, a report or the drift check produces.
const SECRET = 'ifr_pk_proj_SECRETq7Zx93LmKw2Tr8Yb';
const WRONG = 'ifr_pk_proj_WRONGkeyN4vB6cX1sD0a';
const SECRETS = [
  SECRET,
  WRONG,
  `Bearer ${SECRET}`,
  `Bearer ${WRONG}`,
  'SECRETq7Zx93LmKw2Tr8Yb',
  'WRONGkeyN4vB6cX1sD0a',
];

type Mutable = Record<string, unknown> & { properties: Record<string, unknown>; required?: string[] };

let fixture: Fixture | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A simulator that takes only SECRET, the adapter holding it, tracing every call into `scan`. */
async function secretFixture(scan: SecretScan, clock = new VirtualClock()) {
  fixture = await startFixture({
    simulator: { apiKeys: [SECRET], clock },
    adapter: { apiKey: SECRET, onCall: (call: InfraiCall) => scan.value('onCall', call) },
  });
  await fixture.admin.createQueue({ name: 'orders', redriveAfterReceives: 3 });
  return fixture;
}

function expectNoSecrets(scan: SecretScan, atLeast = 1) {
  expect(scan.size).toBeGreaterThanOrEqual(atLeast);
  expect(scan.summary()).toEqual([]);
}

describe('the scanner', () => {
  it('finds the key where it is (so a clean scan means something)', () => {
    const scan = new SecretScan(SECRETS);
    scan.error('planted', new QueueError('INTERNAL', 'x', { details: { header: `Bearer ${SECRET}` } }));
    expect(scan.leaks().length).toBeGreaterThan(0);
  });
});

describe('the API key never appears', () => {
  it('in errors from every failure the adapter maps: 401, 402, 404, 429, validation, drops, timeouts, a drifted response', async () => {
    const scan = new SecretScan(SECRETS);
    const f = await secretFixture(scan);
    const codes = new Set<string>();
    const collect = (what: string, error: unknown) => {
      expect(error, what).toBeInstanceOf(QueueError);
      codes.add((error as QueueError).code);
      scan.error(what, error);
    };
    const queue = await f.open('orders', { retry: { maxAttempts: 2, baseMs: 1, maxMs: 2 } });
    queue.on('retry', (info) => scan.value('retry event', info));

    // 401: a wrong key, from the adapter option and from the environment.
    const wrong = createInfraiAdapter({ apiKey: WRONG, onCall: (c) => scan.value('onCall', c) });
    collect('401 option', await failure(() => wrong.open(f.urlOf('orders'), {})));
    collect(
      '401 env',
      await failure(() => createInfraiAdapter().open(f.urlOf('orders'), { env: { INFRAI_API_KEY: WRONG } })),
    );

    // 404: a queue that is not there, at open and under an open queue.
    collect('404 open', await failure(() => f.adapter.open(f.urlOf('missing'), {})));
    await f.admin.createQueue({ name: 'doomed' });
    const doomed = await f.open('doomed');
    await f.admin.deleteQueue(f.urlOf('doomed').href);
    collect('404 publish', await failure(() => doomed.publish(event())));

    // 429 past the policy.
    f.sim.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 0, count: 2 });
    collect('429', await failure(() => queue.publish(event())));

    // Validation, locally (by the committed snapshot); the simulator's own refusal is below.
    const driver = queue.driver as InfraiDriver;
    const [release] = await driver.release([{ receipt: 'r.x', delaySeconds: 604_801 }]);
    collect('local validation', (release as { error: unknown }).error);
    collect('bad queue name', await failure(() => f.admin.createQueue({ name: 'no spaces allowed' })));

    // 402.
    f.sim.setCredit(0);
    collect('402 publish', await failure(() => queue.publish(event())));
    collect('402 receive', await failure(() => queue.receive()));
    f.sim.setCredit(undefined);

    // Dropped connections, before and after the request was done.
    f.sim.faults.inject({ kind: 'drop-before', count: 2, capability: 'queue.publish_batch' });
    collect('drop-before', await failure(() => queue.publish(event())));
    f.sim.faults.inject({ kind: 'drop-after', count: 2, capability: 'queue.consume' });
    collect('drop-after', await failure(() => queue.receive()));

    // A payload too large once its attributes are escaped (measured by the driver).
    collect(
      'payload too large',
      await failure(() => queue.publish({ ...event(), attributes: { a: '\u0001'.repeat(50_000) } })),
    );

    // Timeouts: a slow simulator and a short timeoutMs on the URL.
    const hasty = await f.open('orders', {
      query: 'timeoutMs=100',
      retry: { maxAttempts: 1 },
    });
    // (the deadline is the driver's own, one for the whole request.)
    f.sim.faults.inject({ kind: 'slow', delayMs: 2_000, capability: 'queue.publish_batch' });
    const timedOut = await failure(() => hasty.publish(event()));
    collect('timeout', timedOut);
    expect((timedOut as QueueError).message).toMatch(/no answer from Infrai within/);

    // A response that does not match the snapshot: the simulator's discovery changes consume's
    // response schema, and a driver speaking that drifted contract gets answers it forbids.
    const drifted = await startInfraiSimulator({
      apiKeys: [SECRET],
      discovery: (snapshot: DiscoverySnapshot) => {
        const consume = snapshot.capabilities['queue.consume']!.response as Mutable;
        const items = (consume.properties.messages as { items: Mutable }).items;
        items.required = [...(items.required ?? []), 'region'];
        const batch = snapshot.capabilities['queue.publish_batch']!.request as Mutable;
        (batch.properties.messages as Record<string, unknown>).maxItems = 1;
        return snapshot;
      },
    });
    cleanups.push(() => drifted.close());
    await callCapability(drifted, 'queue.create', { name: 'orders', idempotency_key: 'k' });
    await new Queue(
      await InfraiDriver.open({ baseUrl: drifted.url, apiKey: SECRET, queue: 'orders' }),
    ).publish(event());
    const speaksDrift = await InfraiDriver.open({
      baseUrl: drifted.url,
      apiKey: SECRET,
      queue: 'orders',
      snapshot: drifted.snapshot,
    });
    collect('drifted consume', await failure(() => new Queue(speaksDrift).receive()));
    // The simulator refuses what the committed snapshot allows: VALIDATION_ERROR, HTTP 400.
    const refusedByInfrai = await failure(async () =>
      new Queue(
        await InfraiDriver.open({ baseUrl: drifted.url, apiKey: SECRET, queue: 'orders' }),
      ).publishBatch([event(), event()]),
    );
    expect(refusedByInfrai).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { infraiCode: 'VALIDATION_ERROR', httpStatus: 400 },
    });
    collect('validation by Infrai', refusedByInfrai);
    const listDrift = structuredClone(drifted.snapshot) as DiscoverySnapshot;
    const list = listDrift.capabilities['queue.list']!.response as Mutable;
    list.required = [...(list.required ?? []), 'next_page'];
    const listError = await failure(() =>
      InfraiDriver.open({ baseUrl: drifted.url, apiKey: SECRET, queue: 'orders', snapshot: listDrift }),
    );
    expect(listError).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/does not match the snapshot/),
    });
    collect('drifted list', listError);

    expect([...codes].sort()).toEqual([
      'INTERNAL',
      'INVALID_ARGUMENT',
      'NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'RATE_LIMITED',
      'UNAUTHORIZED',
      'UNAVAILABLE',
    ]);
    expectNoSecrets(scan, 100);
  });

  it('in what the Queue and a consumer log, and in the onCall trace', async () => {
    const scan = new SecretScan(SECRETS);
    const lines: string[] = [];
    fixture = await startFixture({
      simulator: { apiKeys: [SECRET] },
      adapter: { apiKey: SECRET, onCall: (call) => scan.value('onCall', call) },
    });
    const f = fixture;
    await f.admin.createQueue({ name: 'orders' });
    const queue = await f.open('orders', { logger: { warn: (line) => lines.push(line) } });

    // invalid-message: a payload that is not queueport's.
    await callCapability(f.sim, 'queue.publish', { queue: 'orders', payload: { hello: 'world' } });
    expect(await queue.receive({ leaseSeconds: 1 })).toEqual([]);

    // lease-lost: a consumer whose ack was committed and its answer dropped.
    await queue.publish(event());
    f.sim.faults.inject({ kind: 'drop-after', capability: 'queue.ack' });
    let handled = 0;
    const consumer = queue.consume(async () => {
      handled++;
    });
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 3000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => f.calls('queue.ack').length >= 2);
    // error (receive): no credit.
    f.sim.setCredit(0);
    await until(() => lines.some((l) => l.includes("'error' (receive)")));
    await consumer.close();
    scan.value('consumer stats', consumer.stats);

    expect(handled).toBe(1);
    expect(lines.some((l) => l.includes("'invalid-message'"))).toBe(true);
    expect(lines.some((l) => l.includes("'lease-lost'"))).toBe(true);
    expect(lines.some((l) => l.includes("'error' (receive)") && l.includes('no credit'))).toBe(true);
    for (const line of lines) scan.text('log line', line);
    expectNoSecrets(scan, 10);
  });

  it('in a conformance report (JSON and formatReport)', async () => {
    const scan = new SecretScan(SECRETS);
    const make = async (clock: VirtualClock, missing: boolean): Promise<DriverUnderTest> => {
      const sim = await startInfraiSimulator({ apiKeys: [SECRET], clock });
      const adapter = createInfraiAdapter({ apiKey: SECRET, onCall: (c) => scan.value('onCall', c) });
      const admin = await adapter.admin!(new URL(`infrai://${new URL(sim.url).host}?tls=false`), {});
      const url = await admin.createQueue({ name: 'conformance', redriveAfterReceives: 2 });
      const driver = await adapter.open(new URL(url), {});
      if (missing) await admin.deleteQueue(url);
      return { driver, dispose: () => sim.close() };
    };
    const harness = virtualTimeHarness('infrai secret', (clock) => make(clock, false), {
      numRuns: 3,
      createMissingDriver: (clock) => make(clock, true),
    });
    const report = await runConformance(harness, { seed: 42, properties: [roundTrip, missingQueue] });
    expect(report.summary).toEqual({ passed: 2, failed: 0, skipped: 0 });
    scan.text('report JSON', JSON.stringify(report));
    scan.text('formatReport', formatReport(report));
    expectNoSecrets(scan, 3);
  });

  it('in the drift check against a mutated simulator (checkDiscovery, formatDrift, driftReport)', async () => {
    const scan = new SecretScan(SECRETS);
    const sim = await startInfraiSimulator({
      apiKeys: [SECRET],
      discovery: (snapshot: DiscoverySnapshot) => {
        const publish = snapshot.capabilities['queue.publish']!.request as Mutable;
        delete publish.properties.priority;
        const consume = snapshot.capabilities['queue.consume']!.response as Mutable;
        consume.required = [...(consume.required ?? []), 'cursor'];
        return snapshot;
      },
    });
    cleanups.push(() => sim.close());
    const check = await checkDiscovery(sim.url);
    expect(check.matches).toBe(false);
    const lines = formatDrift(check.differences);
    expect(lines.join('\n')).toMatch(/priority/);
    scan.text('check JSON', JSON.stringify(check));
    scan.text('formatDrift', lines.join('\n'));
    scan.text('driftReport', JSON.stringify(driftReport(check.differences)));
    expectNoSecrets(scan, 3);
  });

  it('in the admin’s errors', async () => {
    const scan = new SecretScan(SECRETS);
    const f = await secretFixture(scan);
    const errors: Array<[string, unknown]> = [];
    const wrongAdmin = await createInfraiAdapter({ apiKey: WRONG }).admin!(f.provider, {});
    errors.push(['stats 401', await failure(() => wrongAdmin.stats(f.urlOf('orders').href))]);
    errors.push(['create 401', await failure(() => wrongAdmin.createQueue({ name: 'x' }))]);
    errors.push(['delete missing', await failure(() => f.admin.deleteQueue(f.urlOf('missing').href))]);
    errors.push(['create existing', await failure(() => f.admin.createQueue({ name: 'orders' }))]);
    errors.push([
      'create setting',
      await failure(() => f.admin.createQueue({ name: 'y', settings: { shard: 2 } })),
    ]);
    errors.push(['foreign url', await failure(() => f.admin.stats('infrai://elsewhere.example/orders'))]);
    errors.push(['not a url', await failure(() => f.admin.stats('orders'))]);
    errors.push([
      'credentials in url',
      await failure(() => f.admin.stats(`infrai://u:${SECRET}@${new URL(f.sim.url).host}/orders?tls=false`)),
    ]);
    // Every queue the admin makes has dead letters: this one is made without.
    await rawCreate(f.sim, { name: 'plain' });
    errors.push([
      'no dlq',
      await failure(() => f.admin.listDeadLetters!(f.urlOf('plain').href, { limit: 5 })),
    ]);
    f.sim.setCredit(0);
    errors.push([
      '402',
      await failure(() => f.admin.redriveDeadLetters!(f.urlOf('orders').href, { limit: 5 })),
    ]);
    for (const [what, error] of errors) {
      expect(error, what).toBeInstanceOf(QueueError);
      scan.error(what, error);
    }
    expectNoSecrets(scan, 50);
  });
});

describe('URLs never carry the key, and refusing one does not echo it', () => {
  const host = '127.0.0.1:9';

  it('a URL with credentials is refused (adapter, admin, registry, openQueue), naming no part of them', async () => {
    const scan = new SecretScan(SECRETS);
    const adapter = createInfraiAdapter({ apiKey: 'ifr_other' });
    const urls = [
      `infrai://user:${SECRET}@${host}/orders?tls=false`,
      `infrai://${SECRET}@${host}/orders`,
      `infrai://${SECRET}:@${host}/orders`,
      `infrai://:${SECRET}@${host}/orders`,
    ];
    for (const url of urls) {
      const errors = [
        await failure(() => adapter.open(new URL(url), {})),
        await failure(() => adapter.admin!(new URL(url), {})),
        await failure(() => new AdapterRegistry([adapter]).openQueue(url)),
        await failure(() => openQueue(url, { adapters: [adapter] })),
      ];
      for (const error of errors) {
        expect(error).toMatchObject({
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/no credentials/),
        });
        scan.error(url.replace(SECRET, '<key>'), error);
      }
    }
    expectNoSecrets(scan, 50);
  });

  it('a key pasted into keyEnv= that is no variable name is refused without echoing it', async () => {
    const scan = new SecretScan(['ifr-pk-live-SECRETq7Zx93', 'SECRETq7Zx93']);
    const error = await failure(() =>
      createInfraiAdapter().open(new URL(`infrai://${host}/orders?keyEnv=ifr-pk-live-SECRETq7Zx93`), {}),
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'keyEnv' } });
    scan.error('keyEnv', error);
    expectNoSecrets(scan);
  });

  it('a key passed as ?apiKey= is refused by the option’s name, not its value', async () => {
    const scan = new SecretScan(SECRETS);
    const error = await failure(() =>
      createInfraiAdapter().open(new URL(`infrai://${host}/orders?apiKey=${SECRET}`), {}),
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'apiKey' } });
    scan.error('apiKey=', error);
    expectNoSecrets(scan);
  });

  it('a real Infrai key pasted into keyEnv= is refused and never echoed (ifr_… is a valid variable name)', async () => {
    // keyEnv= refuses only values that are not variable names; Infrai keys (ifr_pk_proj_…) are
    // letters, digits and underscores, so the pasted key becomes the variable's name, is not
    // set, and the "no API key: set <keyEnv>" message prints the key itself.
    const scan = new SecretScan(SECRETS);
    const error = await failure(() =>
      createInfraiAdapter().open(new URL(`infrai://${host}/orders?keyEnv=${SECRET}`), { env: {} }),
    );
    expect(error).toBeInstanceOf(QueueError);
    scan.error('keyEnv=<key>', error);
    expect(scan.summary()).toEqual([]);
  });

  it('URL option errors never echo a value or an unusual option name, so a key pasted into the query is not printed', async () => {
    const scan = new SecretScan(SECRETS);
    for (const query of [SECRET, `timeoutMs=${SECRET}`, `tls=${SECRET}`]) {
      const error = await failure(() =>
        createInfraiAdapter().open(new URL(`infrai://${host}/orders?${query}`), {}),
      );
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
      scan.error(`?${query.replace(SECRET, '<key>')}`, error);
    }
    expect(scan.summary()).toEqual([]);
  });
});
