import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DiscoverySnapshot,
  type ServedDetail,
  SNAPSHOT,
  schemasOf,
  servedFromContract,
} from '../src/discovery/discovery-format';
import { type InfraiSimulator, type InfraiSimulatorOptions, startInfraiSimulator } from '../src/testing';
import { callCapability, rawRequest } from '../src/testing/raw-client';

let sim: InfraiSimulator;
afterEach(async () => {
  await sim.close();
});

async function started(options: InfraiSimulatorOptions = {}) {
  sim = await startInfraiSimulator({ clock: new VirtualClock(), ...options });
}
const get = (path: string) => rawRequest(sim, { method: 'GET', path, apiKey: null });

describe('discovery', () => {
  it('serves the index: version v1, generated_at on the clock, every capability of the snapshot', async () => {
    await started();
    const answer = await get('/v1/discovery');
    expect(answer.status).toBe(200);
    expect(answer.envelope.metadata).toMatchObject({ cost_usd: 0, vendor: 'infrai' });
    expect(answer.envelope.data).toEqual({
      version: 'v1',
      generated_at: new Date(sim.clock.now()).toISOString(),
      capabilities: Object.entries(SNAPSHOT.capabilities).map(([id, c]) => servedFromContract(id, c).entry),
    });
  });

  it('serves each capability’s detail, whose schemas are the snapshot’s', async () => {
    await started();
    for (const [id, contract] of Object.entries(SNAPSHOT.capabilities)) {
      const answer = await get(`/v1/discovery/${id}`);
      expect(answer.status, id).toBe(200);
      const detail = answer.envelope.data as ServedDetail;
      expect(detail).toEqual(servedFromContract(id, contract).detail);
      expect(schemasOf(detail)).toEqual({ request: contract.request, response: contract.response });
    }
  });

  it('answers 404 NOT_FOUND for an unknown capability id', async () => {
    await started();
    const answer = await get('/v1/discovery/queue.purge');
    expect(answer.status).toBe(404);
    expect(answer.envelope.error).toMatchObject({ code: 'NOT_FOUND', retryable: false });
  });

  it('lists the regions it was given', async () => {
    await started({ regions: ['ap-south'] });
    const index = (await get('/v1/discovery')).envelope.data as { capabilities: { regions: string[] }[] };
    expect(new Set(index.capabilities.map((c) => c.regions.join()))).toEqual(new Set(['ap-south']));
    expect(((await get('/v1/discovery/queue.ack')).envelope.data as ServedDetail).regions).toEqual([
      'ap-south',
    ]);
  });
});

describe('the discovery option: schema drift', () => {
  function drifted(edit: (snapshot: DiscoverySnapshot) => void) {
    return (snapshot: DiscoverySnapshot) => {
      edit(snapshot);
      return snapshot;
    };
  }
  type Mutable = Record<string, unknown> & { properties: Record<string, unknown>; required: string[] };
  const requestOf = (snapshot: DiscoverySnapshot, id: string) =>
    snapshot.capabilities[id]?.request as unknown as Mutable;

  it('changes what is served and what is validated together, leaving SNAPSHOT as committed', async () => {
    const committed = JSON.stringify(SNAPSHOT);
    await started({
      discovery: drifted((snapshot) => {
        const publish = requestOf(snapshot, 'queue.publish');
        delete publish.properties.priority;
        publish.properties.region = { type: 'string', enum: ['eu-west', 'us-east'] };
        publish.required.push('region');
      }),
    });
    expect(JSON.stringify(SNAPSHOT)).toBe(committed);
    const detail = (await get('/v1/discovery/queue.publish')).envelope.data as ServedDetail;
    const request = schemasOf(detail).request as Mutable;
    expect(request.required).toContain('region');
    expect(request.properties).not.toHaveProperty('priority');
    await callCapability(sim, 'queue.create', { name: 'orders', idempotency_key: 'c' });

    const old = await callCapability(sim, 'queue.publish', { queue: 'orders', payload: {}, priority: 1 });
    expect(old.status).toBe(400);
    expect(old.envelope.error?.message).toContain('request field /priority is not allowed');
    expect(old.envelope.error?.message).toContain('request field /region is required');
    const current = await callCapability(sim, 'queue.publish', {
      queue: 'orders',
      payload: {},
      region: 'eu-west',
    });
    expect(current.status).toBe(200);
  });

  it('routes a capability by the path and method discovery gives it', async () => {
    await started({
      discovery: drifted((snapshot) => {
        const contract = snapshot.capabilities['queue.list'];
        if (contract) Object.assign(contract, { path: '/v1/queue/queues', method: 'POST' });
      }),
    });
    expect((await rawRequest(sim, { method: 'GET', path: '/v1/queue/list' })).status).toBe(404);
    const moved = await callCapability(sim, 'queue.list', {});
    expect(moved.status).toBe(200);
    expect(moved.envelope.data).toEqual({ queues: [] });
  });

  it('answers a capability discovery lists as unavailable with 503, and one the simulator lacks with 404', async () => {
    await started({
      discovery: drifted((snapshot) => {
        const consume = snapshot.capabilities['queue.consume'];
        const list = snapshot.capabilities['queue.list'];
        if (consume) Object.assign(consume, { available: false });
        if (list)
          Object.assign(snapshot.capabilities, { 'queue.purge': { ...list, path: '/v1/queue/purge' } });
      }),
    });
    const unavailable = await callCapability(sim, 'queue.consume', { queue: 'orders' });
    expect(unavailable.status).toBe(503);
    expect(unavailable.envelope.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect((await get('/v1/discovery/queue.purge')).status).toBe(200);
    const missing = await callCapability(sim, 'queue.purge', {});
    expect(missing.status).toBe(404);
    expect(missing.envelope.error?.message).toContain('does not implement queue.purge');
  });

  it('answers with the status a drifted error list gives a code', async () => {
    await started({
      discovery: drifted((snapshot) => {
        const consume = snapshot.capabilities['queue.consume'];
        const errors = consume?.errors.map((e) =>
          e.code === 'QUEUE_NOT_FOUND' ? { ...e, http_status: 410 } : e,
        );
        if (consume && errors) Object.assign(consume, { errors });
      }),
    });
    expect((await callCapability(sim, 'queue.consume', { queue: 'gone' })).status).toBe(410);
    expect((await callCapability(sim, 'queue.ack', { queue: 'gone', receipt_handle: 'h' })).status).toBe(404);
  });
});
