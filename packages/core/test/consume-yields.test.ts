import { Queue } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { FakeDriver } from './helpers/fake-driver';
import { event } from './helpers/fake-setup';

// A memory backlog with handlers that do no I/O resolves everything in microtasks: without a
// yield, a timer set before the drain would fire only after the last message.
describe('consume yields to the event loop while a backlog drains', () => {
  for (const concurrency of [1, 16]) {
    it(`lets a timer run between deliveries (concurrency ${concurrency})`, async () => {
      const queue = new Queue(new FakeDriver());
      const total = 500;
      for (let i = 0; i < total; i += 10) {
        await queue.publishBatch(Array.from({ length: 10 }, (_, j) => event(`e${i + j}`)));
      }
      let handled = 0;
      let handledWhenTimerFired: number | undefined;
      let drained!: () => void;
      const allHandled = new Promise<void>((resolve) => {
        drained = resolve;
      });
      const consumer = queue.consume(
        async () => {
          handled++;
          if (handled === total) drained();
        },
        { concurrency, waitSeconds: 0 },
      );
      setTimeout(() => {
        handledWhenTimerFired = handled;
      }, 0);
      await allHandled;
      await consumer.close();
      await queue.close();
      expect(handledWhenTimerFired).toBeDefined();
      expect(handledWhenTimerFired).toBeLessThan(total);
    });
  }
});
