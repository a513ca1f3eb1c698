/**
 * The wire call is typed by the types generated from the discovery snapshot: a field discovery
 * does not list, a missing or mistyped field, an unknown capability, or an answer read as what
 * it is not, is a compile error (each `@ts-expect-error` below fails `pnpm typecheck` the day it
 * stops being one), and at run time the same call is refused locally, by field, with no request.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { QUEUE_CAPABILITIES, SNAPSHOT } from '../src/discovery/discovery-format';
import type {
  QueueCapabilityId,
  QueueConsumeRequest,
  QueueListResponse,
  RequestOf,
  ResponseOf,
} from '../src/generated/queue-types';
import { startInfraiSimulator } from '../src/testing';
import { type InfraiCall, InfraiHttp } from '../src/wire/infrai-http';

/** Nothing listens on port 9 (discard): a request that left would fail as UNAVAILABLE, not as asserted. */
function offline() {
  const calls: InfraiCall[] = [];
  const http = new InfraiHttp({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'ifr_test_key',
    snapshot: SNAPSHOT,
    name: 'typed',
    onCall: (call) => calls.push(call),
  });
  return { http, calls };
}

describe('a call that does not match the generated types', () => {
  it('a field the request schema does not list', async () => {
    const { http, calls } = offline();
    const call = http.call('queue.consume', {
      queue: 'orders',
      // @ts-expect-error discovery names it visibility_timeout
      visibility_timeout_seconds: 30,
    });
    await expect(call).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'visibility_timeout_seconds' },
    });
    expect(calls).toEqual([]);
  });

  it('a required field left out', async () => {
    const { http, calls } = offline();
    // @ts-expect-error queue.ack needs the receipt_handle
    const call = http.call('queue.ack', { queue: 'orders' });
    await expect(call).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'receipt_handle' },
    });
    expect(calls).toEqual([]);
  });

  it('a field of the wrong type', async () => {
    const { http, calls } = offline();
    // @ts-expect-error max_messages is a number
    const call = http.call('queue.consume', { queue: 'orders', max_messages: '10' });
    await expect(call).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'max_messages' },
    });
    expect(calls).toEqual([]);
  });

  it('a capability the snapshot does not hold', async () => {
    const { http, calls } = offline();
    // @ts-expect-error Infrai documents no purge
    const call = http.call('queue.purge', { queue: 'orders' });
    await expect(call).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(calls).toEqual([]);
  });

  it('a spliced field the request does not have', async () => {
    const { http, calls } = offline();
    const params = { queue: 'orders', messages: [{ payload: {} }] };
    // @ts-expect-error the batch's field is messages
    const call = http.call('queue.publish_batch', params, { raw: { field: 'mesages', json: '[{}]' } });
    await expect(call).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('mesages'),
    });
    expect(calls).toEqual([]);
  });
});

describe('what a call answers is the generated response type', () => {
  it('queue.list, against the simulator', async () => {
    const simulator = await startInfraiSimulator();
    try {
      const http = new InfraiHttp({
        baseUrl: simulator.url,
        apiKey: simulator.apiKey,
        snapshot: SNAPSHOT,
        name: 't',
      });
      const answer = await http.call('queue.list', {});
      expectTypeOf(answer).toEqualTypeOf<QueueListResponse>();
      expect(answer.queues).toEqual([]);
      // @ts-expect-error a queue's name is a string
      const name: number | undefined = answer.queues[0]?.name;
      expect(name).toBeUndefined();
    } finally {
      await simulator.close();
    }
  });

  it('the map covers exactly the capabilities the adapter calls', () => {
    expectTypeOf<QueueCapabilityId>().toEqualTypeOf<(typeof QUEUE_CAPABILITIES)[number]>();
    expectTypeOf<RequestOf<'queue.consume'>>().toEqualTypeOf<QueueConsumeRequest>();
    expectTypeOf<ResponseOf<'queue.ack'>['acknowledged']>().toEqualTypeOf<boolean>();
    expect([...QUEUE_CAPABILITIES].sort()).toEqual(Object.keys(SNAPSHOT.capabilities).sort());
  });
});
