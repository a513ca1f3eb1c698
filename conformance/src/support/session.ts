import { randomUUID } from 'node:crypto';
import type { Capabilities, Delivery, EnvelopeInput, JsonValue, Queue } from '@queueport/core';
import {
  type ConformanceHarness,
  type HarnessClock,
  type QueueUnderTest,
  type ResolvedTiming,
  resolveTiming,
} from '../harness';
import { check, show } from './violation';

const OCCURRED_AT = '2026-01-01T00:00:00.000Z';

/**
 * One property run: a fresh queue, its clock, and the moves every property needs (draining,
 * proving nothing is there). Event ids carry a per-run nonce so runs never dedupe each other,
 * even on providers whose idempotency memory outlives the queue.
 */
export class Session {
  readonly queue: Queue;
  readonly clock: HarnessClock;
  readonly timing: ResolvedTiming;
  readonly inspect: QueueUnderTest['inspect'];
  readonly incidents: readonly string[];
  readonly nonce = randomUUID().slice(0, 8);
  readonly #dispose: () => Promise<void>;
  readonly #under: QueueUnderTest;

  private constructor(under: QueueUnderTest, timing: ResolvedTiming, dispose: () => Promise<void>) {
    this.#under = under;
    this.queue = under.queue;
    this.clock = under.clock;
    this.inspect = under.inspect;
    this.incidents = under.incidents ?? [];
    this.timing = timing;
    this.#dispose = dispose;
  }

  static async open(harness: ConformanceHarness, which: 'fresh' | 'missing' = 'fresh'): Promise<Session> {
    const under =
      which === 'missing' && harness.createMissingQueue
        ? await harness.createMissingQueue()
        : await harness.createQueue();
    const dispose = under.dispose ? () => under.dispose!() : () => under.queue.close();
    return new Session(under, resolveTiming(harness, under.clock, under.queue.capabilities), dispose);
  }

  /** Cuts the provider connection, where the harness can (`QueueUnderTest.dropConnection`). */
  get dropConnection(): (() => Promise<void>) | undefined {
    const drop = this.#under.dropConnection;
    return drop ? () => drop.call(this.#under) : undefined;
  }

  /**
   * Says which check this run could not make and why: the report lists it beside the result,
   * so a pass never hides what was left unchecked.
   */
  note(text: string): void {
    this.#under.note?.(text);
  }

  get caps(): Capabilities {
    return this.queue.capabilities;
  }

  eventId(suffix: string): string {
    return `${this.nonce}:${suffix}`;
  }

  envelope(suffix: string, payload: JsonValue = { n: suffix }): EnvelopeInput {
    return { event_id: this.eventId(suffix), type: 'conformance.test', occurred_at: OCCURRED_AT, payload };
  }

  /** The lease a property uses when it wants messages to stay hidden while it looks around. */
  get longLeaseSeconds(): number {
    return Math.min(this.caps.leaseSeconds.max, this.timing.virtual ? 3600 : 60);
  }

  async receive(
    maxMessages = this.caps.batch.receive,
    leaseSeconds = this.longLeaseSeconds,
  ): Promise<Delivery[]> {
    return this.queue.receive({ maxMessages, leaseSeconds, waitSeconds: this.timing.receiveWaitSeconds });
  }

  /** How often one message may be received before the provider's own redrive takes it. */
  get receivesBeforeRedrive(): number {
    return this.caps.deadLetter.redriveAfterReceives ?? Number.POSITIVE_INFINITY;
  }

  /**
   * The lease for a generated value: the value itself on virtual time (within the manifest's
   * bounds), the derived short lease on real time, where it is waited out.
   */
  lease(generated: number): number {
    const { min, max } = this.caps.leaseSeconds;
    return this.timing.virtual ? Math.min(max, Math.max(min, 1, generated)) : this.timing.shortLeaseSeconds;
  }

  /**
   * Receives until a receive comes back empty. A message that comes back while this drain
   * still holds it unacked means its lease did not hold, and is reported as such rather than
   * drained again and again.
   */
  async drain(options: { ack: boolean; leaseSeconds?: number; limit?: number }): Promise<Delivery[]> {
    const all: Delivery[] = [];
    const held = new Set<string>();
    const limit = options.limit ?? 1000;
    const lease = options.leaseSeconds ?? this.longLeaseSeconds;
    for (;;) {
      const batch = await this.receive(this.caps.batch.receive, lease);
      if (batch.length === 0) return all;
      for (const delivery of batch) {
        const id = delivery.envelope.event_id;
        check(
          !held.has(id),
          `${id} came back while this drain held it under a ${lease} s lease: a leased message was redelivered${this.timing.virtual ? '' : `, or a ${this.timing.receiveWaitSeconds} s long poll outlasted the lease`}`,
        );
        all.push(delivery);
        if (options.ack) await delivery.ack();
        else held.add(id);
      }
      check(all.length <= limit, `received more than ${limit} messages: redelivery without end`);
    }
  }

  /**
   * Nothing is there now. `beforeDue` peeks without a long poll: on real time a poll that waits
   * could itself outlast a short delay and see the message become due.
   */
  async expectNothing(when: string, { beforeDue = false }: { beforeDue?: boolean } = {}): Promise<void> {
    const got = beforeDue
      ? await this.queue.receive({
          maxMessages: this.caps.batch.receive,
          leaseSeconds: this.longLeaseSeconds,
        })
      : await this.receive();
    check(got.length === 0, `${when}: expected no message, received ${show(got.map(summary))}`);
  }

  /**
   * Proves a rejected publish enqueued nothing: a sentinel published afterwards must be the
   * only message there is.
   */
  async expectOnlySentinel(when: string): Promise<void> {
    const sentinel = this.envelope('sentinel');
    await this.queue.publish({ envelope: sentinel });
    const got = await this.drain({ ack: true });
    const ids = got.map((d) => d.envelope.event_id);
    check(
      ids.length === 1 && ids[0] === sentinel.event_id,
      `${when}: expected only the sentinel published afterwards, received ${show(ids)}`,
    );
  }

  /** Fails the run if the Queue had to absorb what a conformant driver never hands it. */
  expectNoIncidents(): void {
    check(this.incidents.length === 0, `during the run, ${this.incidents.join('; ')}`);
  }

  async close(): Promise<void> {
    await this.#dispose();
  }
}

export function summary(delivery: Delivery): { event_id: string; receiveCount: number } {
  return { event_id: delivery.envelope.event_id, receiveCount: delivery.receiveCount };
}

export async function withSession<T>(
  harness: ConformanceHarness,
  run: (session: Session) => Promise<T>,
  which: 'fresh' | 'missing' = 'fresh',
): Promise<T> {
  const session = await Session.open(harness, which);
  try {
    const result = await run(session);
    session.expectNoIncidents();
    return result;
  } finally {
    await session.close();
  }
}
