import { encodeEnvelope, prepareEnvelope, Queue, QueueError } from '@queueport/core';
import {
  BRIDGE_ATTRIBUTE,
  type DriverMessage,
  type ReceiveRequest,
  type SettleOutcome,
} from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { encodeBridgeState } from '../src/delay-bridge/bridge-state';
import { RecordingDriver } from './helpers/recording-driver';

const body = encodeEnvelope(prepareEnvelope({ event_id: 'evt_close', type: 't', payload: 1 }));
const message = (n: number, attributes: Record<string, string> = {}): DriverMessage => ({
  receipt: `r-${n}`,
  messageId: `m-${n}`,
  body,
  attributes,
  receiveCount: 1,
});

/**
 * A driver that logs every call it gets, with `close` among them, so a test can say that no call
 * came after it; acks and receives can be held open by the test.
 */
class WatchedDriver extends RecordingDriver {
  readonly log: string[] = [];
  holdAcks: Promise<void> | undefined;
  /** A receive waits for its signal, then answers this (what a provider's late answer brings). */
  holdReceives: DriverMessage[] | undefined;
  ackFailures = 0;

  override async publish(messages: Parameters<RecordingDriver['publish']>[0]) {
    this.log.push('publish');
    return super.publish(messages);
  }

  override async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.log.push('receive');
    const late = this.holdReceives;
    if (!late) return super.receive(request);
    await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve()));
    this.log.push('receive aborted');
    return late;
  }

  override async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    this.log.push('ack');
    if (this.ackFailures > 0) {
      this.ackFailures--;
      throw new QueueError('UNAVAILABLE', 'try again');
    }
    await this.holdAcks;
    this.log.push('ack answered');
    return super.ack(receipts);
  }

  override async close(): Promise<void> {
    this.log.push('close');
    return super.close();
  }

  callsAfterClose(): string[] {
    return this.log.slice(this.log.indexOf('close') + 1);
  }
}

describe('Queue.close: no call reaches the driver after close()', () => {
  it('waits for a settle in flight to answer before it closes the driver', async () => {
    const driver = new WatchedDriver();
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    driver.inbox.push(message(1));
    const [delivery] = await queue.receive();
    let answer!: () => void;
    driver.holdAcks = new Promise((resolve) => {
      answer = resolve;
    });
    const acking = delivery!.ack();
    const closing = queue.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(driver.closeCalls).toBe(0);
    answer();
    await acking;
    await closing;
    expect(driver.log.slice(-3)).toEqual(['ack', 'ack answered', 'close']);
    expect(driver.closeCalls).toBe(1);
  });

  it('ends a long poll in flight empty, then refuses every call itself', async () => {
    const clock = new VirtualClock();
    const driver = new WatchedDriver();
    driver.holdReceives = [];
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    const polling = queue.receive({ waitSeconds: 20 });
    await clock.advance(0);
    await queue.close();
    expect(await polling).toEqual([]);
    expect(driver.log).toEqual(['receive', 'receive aborted', 'close']);
    const envelope = { event_id: 'late', type: 't', payload: 1 };
    await expect(queue.publish({ envelope })).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(queue.receive()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(queue.ackBatch([])).rejects.toMatchObject({ code: 'CLOSED' });
    expect(() => queue.consume(async () => {})).toThrow(expect.objectContaining({ code: 'CLOSED' }));
    expect(driver.callsAfterClose()).toEqual([]);
  });

  it('lets the bridge finish a hop a late receive brought before it closes the driver', async () => {
    const clock = new VirtualClock();
    const driver = new WatchedDriver({
      capabilities: { delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false } },
    });
    const state = encodeBridgeState({ dueAt: clock.now() + 86_400_000, receiveCount: 0, hop: 0 });
    driver.holdReceives = [message(1, { [BRIDGE_ATTRIBUTE]: state })];
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    const polling = queue.receive({ waitSeconds: 20 });
    await clock.advance(0);
    await queue.close();
    expect(await polling).toEqual([]);
    expect(driver.log).toEqual(['receive', 'receive aborted', 'publish', 'ack', 'ack answered', 'close']);
    expect(driver.published[0]!.attributes[BRIDGE_ATTRIBUTE]).toMatch(/^1:\d+:0:1$/);
  });

  it('lets a settle retrying when close begins finish its retries before it closes the driver', async () => {
    const driver = new WatchedDriver();
    const queue = new Queue(driver, { retry: { maxAttempts: 3, baseMs: 20, maxMs: 20, jitter: 0 } });
    driver.inbox.push(message(1));
    const [delivery] = await queue.receive();
    driver.ackFailures = 1;
    const acking = delivery!.ack();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await queue.close();
    await acking;
    expect(driver.log.slice(-4)).toEqual(['ack', 'ack', 'ack answered', 'close']);
    expect(driver.acks).toEqual(['r-1']);
  });

  it('refuses a settle that comes once the driver is closed, without calling it', async () => {
    const driver = new WatchedDriver();
    const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
    driver.inbox.push(message(1));
    const [delivery] = await queue.receive();
    await queue.close();
    await expect(delivery!.ack()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(delivery!.release()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(delivery!.extendLease(30)).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(delivery!.deadLetter('late')).rejects.toMatchObject({ code: 'CLOSED' });
    expect(driver.callsAfterClose()).toEqual([]);
  });

  it('with timeoutMs, stops waiting for a call that hangs and closes the driver', async () => {
    const clock = new VirtualClock();
    const driver = new WatchedDriver();
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    driver.inbox.push(message(1));
    const [delivery] = await queue.receive();
    driver.holdAcks = new Promise(() => {});
    const acking = delivery!.ack().catch((error: unknown) => error);
    const closing = queue.close({ timeoutMs: 1_000 });
    await clock.advance(999);
    expect(driver.closeCalls).toBe(0);
    await clock.advance(1);
    await closing;
    expect(driver.closeCalls).toBe(1);
    // The hung call ends at its own deadline, and nothing reaches the driver after its close.
    await clock.advance(30_000);
    expect(await acking).toMatchObject({ code: 'UNAVAILABLE', details: { timedOut: true } });
    expect(driver.callsAfterClose()).toEqual([]);
  });

  it("drains its consumers' settles first, then closes the driver once", async () => {
    const clock = new VirtualClock();
    const driver = new WatchedDriver();
    driver.inbox.push(message(1));
    const queue = new Queue(driver, { clock, retry: { maxAttempts: 1 } });
    let handled!: () => void;
    const started = new Promise<void>((resolve) => {
      handled = resolve;
    });
    queue.consume(async () => {
      handled();
      await clock.sleep(1_000);
    });
    await started;
    const closing = queue.close();
    await clock.advance(1_000);
    await closing;
    await queue.close();
    expect(driver.acks).toEqual(['r-1']);
    expect(driver.closeCalls).toBe(1);
    expect(driver.callsAfterClose()).toEqual([]);
  });
});
