import { AdapterRegistry } from '@queueport/core';
import { afterAll, expect, it } from 'vitest';
import { rabbitmqAdapter } from '../src';
import { listQueues, providerUrl, queuesPerFile } from './support/rabbitmq';

const registry = new AdapterRegistry([rabbitmqAdapter]);
const queues = queuesPerFile('delay');
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it('holds each delay in a queue whose TTL is exactly that delay, dead-lettering back to the queue', async () => {
  const admin = await registry.openAdmin(providerUrl());
  cleanups.push(() => admin.close());
  const name = queues.next();
  const url = await admin.createQueue({ name });
  const queue = await registry.openQueue(url);
  cleanups.push(() => queue.close());
  // 1,024 s is where a bucketed design came 512 s early; 604,800 s is the portable maximum.
  const delays = [1, 1024, 86_399, 604_800];
  for (const delaySeconds of delays) {
    await queue.publish({ envelope: { event_id: `d${delaySeconds}`, type: 't', payload: {} }, delaySeconds });
  }
  const byName = new Map((await listQueues()).map((q) => [q.name, q.arguments]));
  for (const seconds of delays) {
    expect(byName.get(`${name}.delay.${seconds}`), `${seconds} s`).toMatchObject({
      'x-message-ttl': seconds * 1000,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': name,
      'x-queue-type': 'classic',
    });
    expect(Number(byName.get(`${name}.delay.${seconds}`)?.['x-expires'])).toBeGreaterThan(seconds * 1000);
  }
  // The short one comes back through its delay queue; the long ones stay held.
  const got = await queue.receive({ maxMessages: 10, waitSeconds: 5 });
  expect(got.map((delivery) => delivery.envelope.event_id)).toEqual(['d1']);
  const [due] = got;
  await due!.ack();
});
