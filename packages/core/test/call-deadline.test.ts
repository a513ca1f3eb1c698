import { DEFAULT_CALL_TIMEOUT_MS, encodeEnvelope, prepareEnvelope, Queue, QueueError } from '@queueport/core';
import type {
  DriverMessage,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
  SettleOutcome,
} from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { RecordingDriver } from './helpers/recording-driver';

const never = <T>() => new Promise<T>(() => {});
const noRetry = { maxAttempts: 1 };

const envelope = prepareEnvelope({ event_id: 'evt_deadline_1', type: 'test.deadline', payload: { n: 1 } });
const message: DriverMessage = {
  receipt: 'r-1',
  messageId: 'm-1',
  body: encodeEnvelope(envelope),
  attributes: {},
  receiveCount: 1,
};

/** A driver whose chosen operations never answer (until the test answers them itself). */
class SilentDriver extends RecordingDriver {
  readonly silent: Set<string>;
  readonly pendingReceives: Array<{ request: ReceiveRequest; answer: (messages: DriverMessage[]) => void }> =
    [];
  constructor(
    silent: string[],
    readonly ownTimeoutMs?: number,
  ) {
    super();
    this.silent = new Set(silent);
    if (ownTimeoutMs !== undefined) Object.defineProperty(this, 'callTimeoutMs', { value: ownTimeoutMs });
    const extend = this.extendLease!;
    const deadLetter = this.deadLetter!;
    Object.assign(this, {
      extendLease: (entries: never) => (this.silent.has('extendLease') ? never() : extend(entries)),
      deadLetter: (entries: never) => (this.silent.has('deadLetter') ? never() : deadLetter(entries)),
    });
  }
  override publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    if (this.silent.has('publish')) {
      this.publishCalls.push([...messages]);
      return never();
    }
    return super.publish(messages);
  }
  override receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    if (!this.silent.has('receive')) return super.receive(request);
    this.receiveCalls.push(request);
    return new Promise((answer) => this.pendingReceives.push({ request, answer }));
  }
  override ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.silent.has('ack') ? never() : super.ack(receipts);
  }
  override release(entries: Parameters<RecordingDriver['release']>[0]): Promise<SettleOutcome[]> {
    return this.silent.has('release') ? never() : super.release(entries);
  }
}

async function settledWithin<T>(promise: Promise<T>, clock: VirtualClock, ms: number) {
  const result = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await clock.advance(ms);
  return result;
}

function expectTimedOut(error: unknown, operation: string, timeoutMs: number) {
  expect(error).toBeInstanceOf(QueueError);
  const queueError = error as QueueError;
  expect(queueError.code).toBe('UNAVAILABLE');
  expect(queueError.retryable).toBe(true);
  expect(queueError.details).toMatchObject({ timedOut: true, timeoutMs });
  expect(queueError.message).toContain(operation);
  expect(queueError.message).toContain(`${timeoutMs} ms`);
}

describe('the deadline on provider calls', () => {
  it('is 30 s by default and validated', () => {
    expect(new Queue(new RecordingDriver()).callTimeoutMs).toBe(DEFAULT_CALL_TIMEOUT_MS);
    expect(DEFAULT_CALL_TIMEOUT_MS).toBe(30_000);
    for (const callTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '1000']) {
      expect(
        () => new Queue(new RecordingDriver(), { callTimeoutMs } as never),
        String(callTimeoutMs),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('refuses a driver whose own callTimeoutMs is not a positive number', () => {
    for (const value of [0, -5, Number.NaN, 'soon']) {
      const driver = Object.assign(new RecordingDriver(), { callTimeoutMs: value });
      expect(() => new Queue(driver as never), String(value)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
  });

  it('rejects a publish the driver never answers with a retryable UNAVAILABLE naming the bound', async () => {
    const clock = new VirtualClock();
    const queue = new Queue(new SilentDriver(['publish']), { clock, callTimeoutMs: 1_000, retry: noRetry });
    const publishing = queue.publish({ envelope }).catch((caught: unknown) => caught);
    await clock.advance(999);
    expect(await Promise.race([publishing, 'pending'])).toBe('pending');
    await clock.advance(1);
    expectTimedOut(await publishing, 'publish', 1_000);
  });

  it('retries a timed-out publish with the same dedupe key', async () => {
    const clock = new VirtualClock();
    const driver = new SilentDriver([]);
    const answer = driver.publish.bind(driver);
    driver.publish = (messages) => {
      if (driver.publishCalls.length > 0) return answer(messages);
      driver.publishCalls.push([...messages]);
      return never();
    };
    const queue = new Queue(driver, {
      clock,
      callTimeoutMs: 1_000,
      retry: { maxAttempts: 2, baseMs: 0, maxMs: 0 },
    });
    const publishing = queue.publish({ envelope });
    await clock.advance(1_000);
    // The retry waits on real time (backoff 0), then the driver answers.
    const receipt = await publishing;
    expect(receipt.eventId).toBe(envelope.event_id);
    expect(driver.publishCalls).toHaveLength(2);
    expect(driver.publishCalls[1]![0]!.dedupeKey).toBe(driver.publishCalls[0]![0]!.dedupeKey);
  });

  it('bounds a receive by its long poll plus the call timeout, aborts its signal, and drops a late answer', async () => {
    const clock = new VirtualClock();
    const driver = new SilentDriver(['receive']);
    const queue = new Queue(driver, { clock, callTimeoutMs: 1_000, retry: noRetry });
    const receiving = queue.receive({ waitSeconds: 5, maxMessages: 1 });
    const result = receiving.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await clock.advance(5_999);
    const [pending] = driver.pendingReceives;
    expect(pending!.request.signal?.aborted).toBe(false);
    expect(await Promise.race([result, 'pending'])).toBe('pending');
    await clock.advance(1);
    const outcome = await result;
    expect('error' in outcome).toBe(true);
    expectTimedOut((outcome as { error: unknown }).error, 'receive', 6_000);
    expect(pending!.request.signal?.aborted).toBe(true);
    // The late answer is taken for nothing: no delivery, no settle, nothing for a later receive.
    pending!.answer([message]);
    driver.silent.delete('receive');
    expect(await queue.receive()).toEqual([]);
    expect(driver.settleCalls).toEqual([]);
  });

  it("passes the caller's abort on to the driver's signal", async () => {
    const clock = new VirtualClock();
    const driver = new SilentDriver(['receive']);
    const caller = new AbortController();
    const receiving = new Queue(driver, { clock }).receive({ signal: caller.signal }).catch(() => []);
    await clock.advance(0);
    caller.abort();
    expect(driver.pendingReceives[0]!.request.signal?.aborted).toBe(true);
    driver.pendingReceives[0]!.answer([]);
    expect(await receiving).toEqual([]);
  });

  it.each(['ack', 'release', 'extendLease', 'deadLetter'] as const)(
    'rejects a %s the driver never answers',
    async (operation) => {
      const clock = new VirtualClock();
      const driver = new SilentDriver([]);
      driver.inbox.push(message);
      const queue = new Queue(driver, { clock, callTimeoutMs: 2_000, retry: noRetry });
      const [delivery] = await queue.receive({ leaseSeconds: 60 });
      driver.silent.add(operation);
      const settling = {
        ack: () => delivery!.ack(),
        release: () => delivery!.release(),
        extendLease: () => delivery!.extendLease(30),
        deadLetter: () => delivery!.deadLetter('test'),
      }[operation]();
      const outcome = await settledWithin(settling, clock, 2_000);
      expectTimedOut((outcome as { error: unknown }).error, operation, 2_000);
    },
  );

  it("never fires before the driver's own deadline, so the driver's typed error comes first", async () => {
    const clock = new VirtualClock();
    const driver = new SilentDriver([], 5_000);
    driver.publish = async () => {
      await clock.sleep(5_000);
      throw new QueueError('UNAVAILABLE', 'recording: the client gave up after 5000 ms', {
        details: { fromDriver: true },
      });
    };
    const queue = new Queue(driver, { clock, callTimeoutMs: 1_000, retry: noRetry });
    expect(queue.callTimeoutMs).toBe(6_000);
    const outcome = await settledWithin(queue.publish({ envelope }), clock, 5_000);
    expect((outcome as { error: QueueError }).error.details).toMatchObject({ fromDriver: true });
  });

  it('keeps a queue bound longer than the driver’s own', () => {
    expect(new Queue(new SilentDriver([], 1_000), { callTimeoutMs: 10_000 }).callTimeoutMs).toBe(10_000);
  });

  it('fires on real time with the system clock', async () => {
    const queue = new Queue(new SilentDriver(['publish']), { callTimeoutMs: 50, retry: noRetry });
    const started = Date.now();
    const error = await queue.publish({ envelope }).catch((caught: unknown) => caught);
    expectTimedOut(error, 'publish', 50);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('a receive whose every pass is refused', () => {
  it('stops passing again once its own bound (long poll plus call timeout) is spent', async () => {
    const clock = new VirtualClock();
    const driver = new SilentDriver(['release']);
    // Every answer: one malformed message, one too many (its give-back never answers).
    driver.receive = async (request) => {
      driver.receiveCalls.push(request);
      return [{ ...message, receipt: '' }, message] as DriverMessage[];
    };
    const queue = new Queue(driver, {
      clock,
      callTimeoutMs: 1_000,
      retry: noRetry,
      logger: { warn: () => {} },
    });
    let settled = false;
    const receiving = queue.receive({ maxMessages: 1 }).finally(() => {
      settled = true;
    });
    for (let step = 0; step < 20 && !settled; step++) await clock.advance(1_000);
    expect(settled).toBe(true);
    expect(await receiving).toEqual([]);
    expect(driver.receiveCalls.length).toBeLessThan(5);
  });
});
