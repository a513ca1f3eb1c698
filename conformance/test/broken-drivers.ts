import type {
  Capabilities,
  Driver,
  DriverMessage,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
  VirtualClock,
} from '@queueport/core';
import { QueueError } from '@queueport/core';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';

/**
 * A memory driver with one deliberate defect. Each subclass overrides the one call it breaks,
 * so the suite's self-test shows which property catches which kind of bug.
 */
class DelegatingDriver implements Driver {
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
  ack(receipt: string): Promise<void> {
    return this.inner.ack(receipt);
  }
  release(receipt: string, delaySeconds: number): Promise<void> {
    return this.inner.release(receipt, delaySeconds);
  }
  extendLease(receipt: string, leaseSeconds: number): Promise<void> {
    return this.inner.extendLease(receipt, leaseSeconds);
  }
  deadLetter(receipt: string, reason: string): Promise<void> {
    return this.inner.deadLetter(receipt, reason);
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
  override release(receipt: string, delaySeconds: number) {
    return super.release(receipt, Math.floor(delaySeconds / 2));
  }
}

/** Drops a message for good when its lease runs out, instead of redelivering it. */
class LosesOnLeaseExpiry extends DelegatingDriver {
  override async receive(request: ReceiveRequest) {
    const messages = await super.receive(request);
    const kept: DriverMessage[] = [];
    for (const message of messages) {
      if (message.receiveCount > 1) await this.inner.ack(message.receipt);
      else kept.push(message);
    }
    return kept;
  }
}

/** Acknowledgement hides the message for a while but never deletes it. */
class RedeliversAfterAck extends DelegatingDriver {
  override ack(receipt: string) {
    return super.release(receipt, 60);
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
    name: 'rewrites bodies, so the sentinel never arrives',
    caughtBy: 'invalid-envelope',
    create: (c) => new RewritesBodies('rewrites-2', c),
  },
];
