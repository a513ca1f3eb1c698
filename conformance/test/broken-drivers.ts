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
import { QueueError } from '@queueport/core/driver';
import type { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';

/**
 * A memory driver with one deliberate defect. Each subclass overrides the one call it breaks,
 * so the suite's self-test shows which property catches which kind of bug.
 */
export class DelegatingDriver implements Driver {
  readonly name: string;
  readonly inner: MemoryDriver;
  readonly clock: VirtualClock;

  constructor(name: string, clock: VirtualClock, options: MemoryDriverOptions = {}) {
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

export interface BrokenDriverCase {
  name: string;
  /** The property that must catch this defect. */
  caughtBy: string;
  create(clock: VirtualClock): Driver;
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
    name: 'rewrites bodies, so the sentinel never arrives',
    caughtBy: 'invalid-envelope',
    create: (c) => new RewritesBodies('rewrites-2', c),
  },
];
