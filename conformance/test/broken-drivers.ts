import type { DriverUnderTest } from '@queueport/conformance';
import type { QueueStats } from '@queueport/core';
import type {
  Capabilities,
  DeadLetterEntry,
  Driver,
  DriverMessage,
  ExtendEntry,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
  ReleaseEntry,
  SettleOutcome,
} from '@queueport/core/driver';
import { type Clock, QueueError, systemClock } from '@queueport/core/driver';
import type { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';

/**
 * A memory driver with one deliberate defect. Each subclass overrides the one call it breaks,
 * so the suite's self-test shows which property catches which kind of bug.
 */
export class DelegatingDriver implements Driver {
  readonly name: string;
  readonly inner: MemoryDriver;
  readonly clock: Clock;

  constructor(name: string, clock: Clock, options: MemoryDriverOptions = {}) {
    this.name = name;
    this.clock = clock;
    this.inner = new MemoryDriver({ clock, ...options });
  }

  get capabilities(): Capabilities {
    return this.inner.capabilities;
  }
  publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    return this.inner.publish(messages);
  }
  receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    return this.inner.receive(request);
  }
  ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.inner.ack(receipts);
  }
  release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return this.inner.release(entries);
  }
  extendLease(entries: readonly ExtendEntry[]): Promise<SettleOutcome[]> {
    return this.inner.extendLease(entries);
  }
  deadLetter(entries: readonly DeadLetterEntry[]): Promise<SettleOutcome[]> {
    return this.inner.deadLetter(entries);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Delivers delayed messages when half their delay has passed. */
class EarlyDelay extends DelegatingDriver {
  override publish(messages: readonly OutgoingMessage[]) {
    return super.publish(messages.map((m) => ({ ...m, delaySeconds: Math.floor(m.delaySeconds / 2) })));
  }
  override release(entries: readonly ReleaseEntry[]) {
    return super.release(entries.map((e) => ({ ...e, delaySeconds: Math.floor(e.delaySeconds / 2) })));
  }
}

/** Drops a message for good when its lease runs out, instead of redelivering it. */
class LosesOnLeaseExpiry extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    const messages = await super.receive(request);
    const kept: DriverMessage[] = [];
    for (const message of messages) {
      if (message.receiveCount > 1) await this.inner.ack([message.receipt]);
      else kept.push(message);
    }
    return kept;
  }
}

/** Acknowledgement hides the message for a while but never deletes it. */
class RedeliversAfterAck extends DelegatingDriver {
  override ack(receipts: readonly string[]) {
    return super.release(receipts.map((receipt) => ({ receipt, delaySeconds: 60 })));
  }
}

/** Declares a 5-minute dedupe window but deduplicates nothing. */
class ClaimsDedupe extends DelegatingDriver {
  constructor(name: string, clock: VirtualClock) {
    super(name, clock, { dedupe: { kind: 'none' } });
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, dedupe: { kind: 'window', windowSeconds: 300 } };
  }
}

/** Declares per-group FIFO but keeps no order and blocks no group. */
class ClaimsOrdering extends DelegatingDriver {
  constructor(name: string, clock: VirtualClock) {
    super(name, clock, { ordering: 'none' });
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, ordering: 'fifo-per-group' };
  }
  override async receive(request: ReceiveRequest) {
    return (await super.receive(request)).reverse();
  }
}

/** Loses message attributes on the way through. */
class DropsAttributes extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    return (await super.receive(request)).map((m) => ({ ...m, attributes: {} }));
  }
}

/** Always reports a first delivery, whatever the real count. */
class FrozenReceiveCount extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    return (await super.receive(request)).map((m) => ({ ...m, receiveCount: 1 }));
  }
}

/** Declares the portable 256 KB but its provider refuses anything over 200,000 bytes. */
class SmallerRealLimit extends DelegatingDriver {
  override async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    if (messages.some((m) => Buffer.byteLength(m.body) > 200_000)) {
      return messages.map(() => ({
        ok: false,
        error: new QueueError('PAYLOAD_TOO_LARGE', 'provider limit'),
      }));
    }
    return super.publish(messages);
  }
}

/** Re-serialises bodies on the way in, so what comes back no longer matches its digest. */
class RewritesBodies extends DelegatingDriver {
  override publish(messages: readonly OutgoingMessage[]) {
    return super.publish(
      messages.map((m) => ({
        ...m,
        body: JSON.stringify({ ...JSON.parse(m.body), payload_sha256: '0'.repeat(64) }),
      })),
    );
  }
}

/**
 * Settles with a stale receipt as SQS does: the stale handle still acts on the message, whoever
 * holds it now. Broken while it declares `staleReceipt: 'rejected'`; honest with `ignored`.
 */
export class ActsOnStaleReceipts extends DelegatingDriver {
  readonly #messageOf = new Map<string, string>();
  readonly #currentReceipt = new Map<string, string>();
  readonly #declared: Capabilities['staleReceipt'];

  constructor(name: string, clock: VirtualClock, declared: Capabilities['staleReceipt']) {
    super(name, clock);
    this.#declared = declared;
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, staleReceipt: this.#declared };
  }
  override async receive(request: ReceiveRequest) {
    const messages = await super.receive(request);
    for (const m of messages) {
      this.#messageOf.set(m.receipt, m.messageId);
      this.#currentReceipt.set(m.messageId, m.receipt);
    }
    return messages;
  }
  #current(receipt: string): string {
    const messageId = this.#messageOf.get(receipt);
    return (messageId && this.#currentReceipt.get(messageId)) ?? receipt;
  }
  override ack(receipts: readonly string[]) {
    return super.ack(receipts.map((r) => this.#current(r)));
  }
  override release(entries: readonly ReleaseEntry[]) {
    return super.release(entries.map((e) => ({ ...e, receipt: this.#current(e.receipt) })));
  }
  override extendLease(entries: readonly ExtendEntry[]) {
    return super.extendLease(entries.map((e) => ({ ...e, receipt: this.#current(e.receipt) })));
  }
}

/** Keeps the attributes of messages sent without a delay only. */
class DropsDelayedAttributes extends DelegatingDriver {
  override publish(messages: readonly OutgoingMessage[]) {
    return super.publish(messages.map((m) => (m.delaySeconds > 0 ? { ...m, attributes: {} } : m)));
  }
}

/** Says the lease was extended and does nothing. */
class ExtensionDoesNothing extends DelegatingDriver {
  override async extendLease(entries: readonly ExtendEntry[]) {
    return entries.map((): SettleOutcome => ({ ok: true }));
  }
}

/** Hands out one message more than it was asked for. */
class ReceivesTooMany extends DelegatingDriver {
  override receive(request: ReceiveRequest) {
    return super.receive({ ...request, maxMessages: request.maxMessages + 1 });
  }
}

/** Ignores the long poll: an empty queue answers at once. */
class NoLongPoll extends DelegatingDriver {
  override receive(request: ReceiveRequest) {
    return super.receive({ ...request, waitSeconds: 0 });
  }
}

/** Long-polls by sleeping through the whole wait, blind to publishes in between. */
class SleepsThroughPublish extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    const now = await super.receive({ ...request, waitSeconds: 0 });
    if (now.length > 0 || request.waitSeconds === 0) return now;
    try {
      await this.clock.sleep(request.waitSeconds * 1000, request.signal);
    } catch {
      return [];
    }
    return super.receive({ ...request, waitSeconds: 0 });
  }
}

/** "Moves" a message to the dead letters by deleting it. */
class DeadLetterDeletes extends DelegatingDriver {
  override deadLetter(entries: readonly DeadLetterEntry[]) {
    return super.ack(entries.map((e) => e.receipt));
  }
}

/** Declares a redrive after 3 receives and never redrives. */
class ClaimsRedrive extends DelegatingDriver {
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, deadLetter: { move: false, redriveAfterReceives: 3 } };
  }
}

/** Declares 14 days of retention and keeps messages for a year. */
class KeepsForever extends DelegatingDriver {
  constructor(name: string, clock: VirtualClock) {
    super(name, clock, { retentionSeconds: 365 * 86_400 });
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, retentionSeconds: 14 * 86_400 };
  }
}

/** Declares 14 days of retention and drops messages after 13. */
class DropsEarly extends DelegatingDriver {
  constructor(name: string, clock: VirtualClock) {
    super(name, clock, { retentionSeconds: 13 * 86_400 });
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, retentionSeconds: 14 * 86_400 };
  }
}

/** Declares a 300 s dedupe window and keeps 295 s. */
class ShortDedupeWindow extends DelegatingDriver {
  constructor(name: string, clock: VirtualClock) {
    super(name, clock, { dedupe: { kind: 'window', windowSeconds: 295 } });
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, dedupe: { kind: 'window', windowSeconds: 300 } };
  }
}

/** Declares a 300 s dedupe window and never forgets an event id. */
class DedupesForever extends DelegatingDriver {
  constructor(name: string, clock: VirtualClock) {
    super(name, clock, { dedupe: { kind: 'while-retained' } });
  }
  override get capabilities(): Capabilities {
    return { ...this.inner.capabilities, dedupe: { kind: 'window', windowSeconds: 300 } };
  }
  override async ack(receipts: readonly string[]) {
    // Released far away instead of deleted, so the id stays "retained" and deduplicated.
    return super.release(receipts.map((receipt) => ({ receipt, delaySeconds: 604_800 })));
  }
}

/** Loses the attributes of a message once it has been released. */
class DropsAttributesOnRelease extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    return (await super.receive(request)).map((m) => (m.receiveCount > 1 ? { ...m, attributes: {} } : m));
  }
}

/** A deleted queue that answers like an empty one. */
class MissingLooksEmpty extends DelegatingDriver {
  override async publish(messages: readonly OutgoingMessage[]) {
    return messages.map((): PublishOutcome => ({ ok: true, messageId: 'nowhere' }));
  }
  override async receive() {
    return [];
  }
}

/** Keeps only the first 32 characters of an attribute name, as some providers' SDKs do. */
class TruncatesAttributeNames extends DelegatingDriver {
  override publish(messages: readonly OutgoingMessage[]) {
    return super.publish(
      messages.map((m) => ({
        ...m,
        attributes: Object.fromEntries(Object.entries(m.attributes).map(([k, v]) => [k.slice(0, 32), v])),
      })),
    );
  }
}

/** The memory driver's admin surface, with its stats passed through `misreport`. */
function withMisreportedStats(
  driver: DelegatingDriver,
  misreport: (stats: QueueStats) => QueueStats,
): DriverUnderTest {
  const inner = driver.inner;
  return {
    driver,
    inspect: {
      deadLetters: async () => inner.deadLetters().map((dead) => ({ ...dead })),
      stats: async () => misreport(inner.stats()),
      redriveDeadLetters: async (limit) => inner.redriveDeadLetters(limit),
      purge: async () => inner.purge(),
    },
  };
}

/** An admin surface whose depth leaves out one message. */
const miscountsDepth = (driver: DelegatingDriver) =>
  withMisreportedStats(driver, (stats) => ({ ...stats, depth: Math.max(0, (stats.depth ?? 0) - 1) }));

/** An admin surface that reports the oldest ready message's age in milliseconds. */
const ageInMilliseconds = (driver: DelegatingDriver) =>
  withMisreportedStats(driver, (stats) => {
    const age = stats.oldestReadyAgeSeconds;
    return { ...stats, oldestReadyAgeSeconds: age === null ? null : age * 1000 };
  });

/** Answers a whole ack batch with the failure of its first bad entry, though it acked the rest. */
class FailsWholeAckBatch extends DelegatingDriver {
  override async ack(receipts: readonly string[]) {
    const outcomes = await super.ack(receipts);
    const failed = outcomes.find((outcome) => !outcome.ok);
    return failed ? outcomes.map(() => failed) : outcomes;
  }
}

/** Says every publish was a duplicate it absorbed. */
class ReportsEveryPublishDuplicate extends DelegatingDriver {
  override async publish(messages: readonly OutgoingMessage[]) {
    return (await super.publish(messages)).map((o) => (o.ok ? { ...o, duplicate: true } : o));
  }
}

/** Holds every released message for the longest delay it has, whatever was asked. */
class HoldsReleasesForMaximum extends DelegatingDriver {
  override release(entries: readonly ReleaseEntry[]) {
    const longest = this.capabilities.delay.nativeMaxSeconds;
    return super.release(entries.map((e) => ({ ...e, delaySeconds: longest })));
  }
}

/** Answers a long poll at once whenever it holds a leased message: the rest may be blocked behind it. */
class NoLongPollWhileLeased extends DelegatingDriver {
  readonly #leased = new Set<string>();
  override async receive(request: ReceiveRequest) {
    const messages = await super.receive(this.#leased.size > 0 ? { ...request, waitSeconds: 0 } : request);
    for (const message of messages) this.#leased.add(message.receipt);
    return messages;
  }
  override ack(receipts: readonly string[]) {
    for (const receipt of receipts) this.#leased.delete(receipt);
    return super.ack(receipts);
  }
  override release(entries: readonly ReleaseEntry[]) {
    for (const { receipt } of entries) this.#leased.delete(receipt);
    return super.release(entries);
  }
}

/** Returns a stray, unreadable entry from a long poll that was aborted. */
class StrayEntryWhenAborted extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    const messages = await super.receive(request);
    if (!request.signal?.aborted) return messages;
    return [{ messageId: 'stray', receipt: 'stray', body: 'aborted', attributes: {}, receiveCount: 1 }];
  }
}

export interface BrokenDriverCase {
  name: string;
  /** The property that must catch this defect. */
  caughtBy: string;
  create(clock: VirtualClock): DriverUnderTest;
  /** For `missing-queue`: the same defect over a queue that does not exist. */
  missing?(clock: VirtualClock): DriverUnderTest;
  /** Runs on real time (the defect only shows there); `create` then gets no virtual clock. */
  realTime?: { create(): DriverUnderTest; numRuns: number };
  /** Its queues come with `dropConnection`. */
  dropsConnection?: true;
  /**
   * For a defect a new check was written for: the properties that must all pass it (`'all'`:
   * the whole suite but `caughtBy`), proving no earlier check catches it.
   */
  passes?: 'all' | readonly string[];
}

/** What the memory driver's dead letters show, as the adapter's admin surface would. */
function withDeadLetters(driver: DelegatingDriver): DriverUnderTest {
  return {
    driver,
    inspect: {
      deadLetters: async () =>
        driver.inner.deadLetters().map((dead) => ({ ...dead, reason: dead.reason, at: dead.at })),
    },
  };
}

/**
 * Holds a delay of 1,024 s or more for 2 s only, as a provider with a 10-bit delay field (or one
 * that reads long delays in the wrong unit) does: invisible right after the publish, due long
 * before it should be. Only a real-time wait shows it; on virtual time any delay check would.
 */
class ShortensLongDelays extends DelegatingDriver {
  override publish(messages: readonly OutgoingMessage[]) {
    return super.publish(messages.map((m) => (m.delaySeconds >= 1024 ? { ...m, delaySeconds: 2 } : m)));
  }
}

/**
 * Prefetches without a limit: every receive leases a whole batch from the provider, returns what
 * was asked for and serves the rest to later receives, leased on the first receive's terms.
 */
class PrefetchesReadyMessages extends DelegatingDriver {
  readonly #buffer: DriverMessage[] = [];
  override async receive(request: ReceiveRequest) {
    if (this.#buffer.length > 0) return this.#buffer.splice(0, request.maxMessages);
    const batch = await super.receive({ ...request, maxMessages: this.capabilities.batch.receive });
    this.#buffer.push(...batch.slice(request.maxMessages));
    return batch.slice(0, request.maxMessages);
  }
}

/**
 * Carries attributes in a frame-sized header, as AMQP does: one past 4 KiB breaks the
 * connection, and every call after it fails.
 */
class AttributesInOneFrame extends DelegatingDriver {
  #broken = false;
  #check(): void {
    if (this.#broken) throw new QueueError('UNAVAILABLE', 'connection closed by the broker: frame too large');
  }
  override async publish(messages: readonly OutgoingMessage[]) {
    this.#check();
    const oversized = messages.some(
      (m) => Object.entries(m.attributes).reduce((n, [k, v]) => n + Buffer.byteLength(k + v), 0) > 4096,
    );
    if (oversized) {
      this.#broken = true;
      this.#check();
    }
    return super.publish(messages);
  }
  override async receive(request: ReceiveRequest) {
    this.#check();
    return super.receive(request);
  }
}

/** Deletes what it had leased when its connection drops, instead of letting it come back. */
function losesLeasedOnDrop(clock: Clock): DriverUnderTest {
  const held = new Set<string>();
  const driver = new (class extends DelegatingDriver {
    override async receive(request: ReceiveRequest) {
      const messages = await super.receive(request);
      for (const m of messages) held.add(m.receipt);
      return messages;
    }
  })('loses-on-drop', clock);
  return {
    driver,
    dropConnection: async () => {
      await driver.inner.ack([...held]);
      held.clear();
      driver.inner.dropConnection();
    },
  };
}

export const brokenDrivers: readonly BrokenDriverCase[] = [
  {
    name: 'delivers delayed messages early',
    caughtBy: 'delay-bounds',
    create: (c) => new EarlyDelay('early-delay', c),
  },
  {
    name: 'releases come back early',
    caughtBy: 'release-delay',
    create: (c) => new EarlyDelay('early-release', c),
  },
  {
    name: 'loses a message when its lease expires',
    caughtBy: 'lease-expiry',
    create: (c) => new LosesOnLeaseExpiry('loses', c),
  },
  {
    name: 'redelivers after ack',
    caughtBy: 'ack-deletes',
    create: (c) => new RedeliversAfterAck('redelivers', c),
  },
  {
    name: 'claims dedupe it does not do',
    caughtBy: 'dedupe',
    create: (c) => new ClaimsDedupe('no-dedupe', c),
  },
  {
    name: 'claims ordering it does not keep',
    caughtBy: 'ordering',
    create: (c) => new ClaimsOrdering('no-order', c),
  },
  {
    name: 'drops attributes',
    caughtBy: 'round-trip',
    create: (c) => new DropsAttributes('drops-attributes', c),
  },
  {
    name: 'reports a frozen receive count',
    caughtBy: 'lease-expiry',
    create: (c) => new FrozenReceiveCount('frozen-count', c),
  },
  {
    name: 'refuses bodies under the declared limit',
    caughtBy: 'size-limit',
    create: (c) => new SmallerRealLimit('small-limit', c),
  },
  {
    name: 'rewrites bodies in transit',
    caughtBy: 'round-trip',
    create: (c) => new RewritesBodies('rewrites', c),
  },
  {
    name: 'acts on stale receipts although it declares it rejects them',
    caughtBy: 'stale-receipt',
    create: (c) => new ActsOnStaleReceipts('stale-acts', c, 'rejected'),
  },
  {
    name: 'drops the attributes of delayed messages',
    caughtBy: 'long-delay',
    create: (c) => new DropsDelayedAttributes('drops-delayed-attributes', c),
  },
  {
    name: 'drops the attributes of delayed messages, under the delay bridge',
    caughtBy: 'long-delay',
    create: (c) =>
      new DropsDelayedAttributes('drops-delayed-attributes-bridged', c, { nativeMaxDelaySeconds: 900 }),
  },
  {
    name: 'says it extended a lease and did nothing',
    caughtBy: 'lease-extension',
    create: (c) => new ExtensionDoesNothing('no-extension', c),
  },
  {
    name: 'hands out more messages than asked for',
    caughtBy: 'batch-bounds',
    create: (c) => new ReceivesTooMany('too-many', c),
  },
  {
    name: 'ignores the long poll',
    caughtBy: 'long-poll',
    create: (c) => new NoLongPoll('no-long-poll', c),
  },
  {
    name: 'sleeps through a publish during a long poll',
    caughtBy: 'long-poll',
    create: (c) => new SleepsThroughPublish('sleeps-through', c),
  },
  {
    name: 'deletes what it should move to the dead letters',
    caughtBy: 'dead-letters',
    create: (c) => withDeadLetters(new DeadLetterDeletes('dead-letter-deletes', c)),
  },
  {
    name: 'declares a redrive it never does',
    caughtBy: 'dead-letters',
    create: (c) => new ClaimsRedrive('no-redrive', c),
  },
  {
    name: 'keeps messages past their retention',
    caughtBy: 'retention',
    create: (c) => new KeepsForever('keeps-forever', c),
  },
  {
    name: 'drops messages before their retention ends',
    caughtBy: 'retention',
    create: (c) => new DropsEarly('drops-early', c),
  },
  {
    name: 'keeps a dedupe window 5 s shorter than it declares',
    caughtBy: 'dedupe-window',
    create: (c) => new ShortDedupeWindow('short-window', c),
  },
  {
    name: 'deduplicates an event id forever',
    caughtBy: 'dedupe-window',
    create: (c) => new DedupesForever('dedupes-forever', c),
  },
  {
    name: 'loses attributes once a message was released',
    caughtBy: 'release-delay',
    create: (c) => new DropsAttributesOnRelease('drops-on-release', c),
  },
  {
    name: 'answers like an empty queue where the queue does not exist',
    caughtBy: 'missing-queue',
    create: (c) => new DelegatingDriver('missing-looks-empty', c),
    missing: (c) => new MissingLooksEmpty('missing-looks-empty', c),
  },
  {
    name: 'truncates long attribute names',
    caughtBy: 'invalid-arguments',
    create: (c) => new TruncatesAttributeNames('truncates-names', c),
  },
  {
    name: 'reports a depth one short on its admin surface',
    caughtBy: 'admin-surface',
    create: (c) => miscountsDepth(new DelegatingDriver('miscounts-depth', c)),
  },
  {
    name: "reports the oldest message's age in milliseconds on its admin surface",
    caughtBy: 'admin-surface',
    create: (c) => ageInMilliseconds(new DelegatingDriver('age-in-ms', c)),
  },
  {
    name: 'fails a whole ack batch for one stale receipt',
    caughtBy: 'stale-receipt',
    create: (c) => new FailsWholeAckBatch('fails-whole-batch', c),
  },
  {
    name: 'reports every publish as a duplicate',
    caughtBy: 'dedupe',
    create: (c) => new ReportsEveryPublishDuplicate('all-duplicates', c),
  },
  {
    name: 'holds every release for its longest delay',
    caughtBy: 'consumer-redelivery',
    create: (c) => new HoldsReleasesForMaximum('holds-releases', c),
  },
  {
    name: 'answers a long poll at once while it holds a leased message',
    caughtBy: 'ordering',
    create: (c) => new NoLongPollWhileLeased('no-poll-while-leased', c),
  },
  {
    name: 'returns a stray entry from an aborted long poll',
    caughtBy: 'long-poll',
    create: (c) => new StrayEntryWhenAborted('stray-entry', c),
  },
  {
    name: 'rewrites bodies, so the sentinel never arrives',
    caughtBy: 'invalid-envelope',
    create: (c) => new RewritesBodies('rewrites-2', c),
  },
  {
    name: 'holds delays of 1,024 s or more for 2 s only',
    caughtBy: 'long-delay-hidden',
    create: (c) => new ShortensLongDelays('shortens-long-delays', c),
    realTime: { create: () => new ShortensLongDelays('shortens-long-delays', systemClock), numRuns: 1 },
    passes: ['delay-bounds', 'release-delay', 'round-trip'],
  },
  {
    name: 'prefetches ready messages without a limit',
    caughtBy: 'receive-holds',
    create: (c) => new PrefetchesReadyMessages('prefetches', c),
    passes: 'all',
  },
  {
    name: 'breaks its connection on attributes past a 4 KiB frame',
    caughtBy: 'attribute-limits',
    create: (c) => new AttributesInOneFrame('attribute-frame', c),
    passes: 'all',
  },
  {
    name: 'loses the messages it held when its connection drops',
    caughtBy: 'connection-drop',
    create: (c) => losesLeasedOnDrop(c),
    dropsConnection: true,
    passes: 'all',
  },
];
