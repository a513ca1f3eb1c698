import { FIFO_DEDUPE_WINDOW_SECONDS } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { event, setup } from './helpers/setup';

describe('dedupe: the default 300 s window', () => {
  it('declares the window, and that its publish answers say when a repeat was absorbed', () => {
    expect(setup().driver.capabilities.dedupe).toEqual({
      kind: 'window',
      windowSeconds: FIFO_DEDUPE_WINDOW_SECONDS,
      reportsDuplicates: true,
    });
  });

  it('absorbs a repeat within the window, even after the first was acked', async () => {
    const { queue, driver, clock } = setup();
    const first = await queue.publish(event('e1'));
    expect(first.duplicate).toBe(false);

    const echo = await queue.publish(event('e1'));
    expect(echo.duplicate).toBe(true);
    expect(echo.messageId).toBe(first.messageId);
    expect(driver.depth()).toBe(1);

    const [delivery] = await queue.receive();
    await delivery!.ack();
    await clock.advance(FIFO_DEDUPE_WINDOW_SECONDS * 1000 - 1);
    expect((await queue.publish(event('e1'))).duplicate).toBe(true);
    expect(await queue.receive()).toEqual([]);
  });

  it('accepts the event id again once the window has passed', async () => {
    const { queue, clock } = setup();
    const first = await queue.publish(event('e1'));
    await clock.advance(FIFO_DEDUPE_WINDOW_SECONDS * 1000);
    const later = await queue.publish(event('e1'));
    expect(later.duplicate).toBe(false);
    expect(later.messageId).not.toBe(first.messageId);
    expect((await queue.receive({ maxMessages: 10 })).map((d) => d.messageId)).toEqual([
      first.messageId,
      later.messageId,
    ]);
  });

  it('absorbs a repeat inside one batch', async () => {
    const { queue, driver } = setup();
    const receipts = await queue.publishBatch([event('e1'), event('e2'), event('e1')]);
    expect(receipts.map((r) => r.duplicate)).toEqual([false, false, true]);
    expect(receipts[2]!.messageId).toBe(receipts[0]!.messageId);
    expect(driver.depth()).toBe(2);
  });

  it('is keyed by event id alone, not by payload', async () => {
    const { queue, driver } = setup();
    await queue.publish({ envelope: { event_id: 'e1', type: 't', payload: 1 } });
    expect((await queue.publish({ envelope: { event_id: 'e1', type: 't', payload: 2 } })).duplicate).toBe(
      true,
    );
    expect(driver.depth()).toBe(1);
  });
});

describe("dedupe: 'while-retained'", () => {
  it('absorbs a repeat while the first is still held, however long, and not after', async () => {
    const { queue, clock } = setup({ dedupe: { kind: 'while-retained' } });
    const first = await queue.publish(event('e1'));
    await clock.advance(3 * 86_400_000);
    const echo = await queue.publish(event('e1'));
    expect(echo).toMatchObject({ duplicate: true, messageId: first.messageId });

    const [delivery] = await queue.receive();
    await delivery!.ack();
    const again = await queue.publish(event('e1'));
    expect(again.duplicate).toBe(false);
    expect(again.messageId).not.toBe(first.messageId);
  });

  it('absorbs a repeat while the first is leased', async () => {
    const { queue } = setup({ dedupe: { kind: 'while-retained' } });
    await queue.publish(event('e1'));
    await queue.receive();
    expect((await queue.publish(event('e1'))).duplicate).toBe(true);
  });

  it('accepts again after the first was dead-lettered', async () => {
    const { queue } = setup({ dedupe: { kind: 'while-retained' } });
    await queue.publish(event('e1'));
    const [delivery] = await queue.receive();
    await delivery!.deadLetter('bad');
    expect((await queue.publish(event('e1'))).duplicate).toBe(false);
  });
});

describe("dedupe: 'none'", () => {
  it('accepts every publish', async () => {
    const { queue, driver } = setup({ dedupe: { kind: 'none' } });
    const receipts = await queue.publishBatch([event('e1'), event('e1')]);
    expect(receipts.map((r) => r.duplicate)).toEqual([false, false]);
    expect(receipts[0]!.messageId).not.toBe(receipts[1]!.messageId);
    expect(driver.depth()).toBe(2);
  });
});
