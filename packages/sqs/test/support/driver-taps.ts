import {
  BRIDGE_ATTRIBUTE,
  type Driver,
  type OutgoingMessage,
  type PublishOutcome,
} from '@queueport/core/driver';

/** What the delay bridge wrote on a hop: `1:<dueAt>:<receiveCount>:<hop>` (core's bridge-state.ts). */
export interface HopState {
  dueAt: number;
  receiveCount: number;
  hop: number;
}

/** The bridge's state on an outgoing message, or undefined for one the bridge did not touch. */
export function hopStateOf(message: Pick<OutgoingMessage, 'attributes'>): HopState | undefined {
  const value = message.attributes[BRIDGE_ATTRIBUTE];
  if (value === undefined) return undefined;
  const [version, dueAt, receiveCount, hop] = value.split(':').map(Number);
  if (version !== 1 || dueAt === undefined || receiveCount === undefined || hop === undefined) {
    throw new Error(`a bridge attribute this test cannot read: ${value}`);
  }
  return { dueAt, receiveCount, hop };
}

/** One bridge hop as it went to the driver, and what the driver answered. */
export interface SentHop extends HopState {
  eventId: string;
  delaySeconds: number;
  ok: boolean;
  /** Epoch ms when the publish call began: SQS counts the hop's delay from no earlier. */
  sentAt: number;
}

/**
 * The driver with a hook after each publish: `after` sees what went out and what the driver
 * answered, and the publish resolves when `after` does. Everything else goes straight through.
 */
export function tapPublishes(
  driver: Driver,
  after: (
    messages: readonly OutgoingMessage[],
    outcomes: readonly PublishOutcome[],
    startedAt: number,
  ) => Promise<void> | void,
): Driver {
  const tapped: Driver = {
    name: driver.name,
    capabilities: driver.capabilities,
    async publish(messages) {
      const startedAt = Date.now();
      const outcomes = await driver.publish(messages);
      await after(messages, outcomes, startedAt);
      return outcomes;
    },
    receive: (request) => driver.receive(request),
    ack: (receipts) => driver.ack(receipts),
    release: (entries) => driver.release(entries),
    close: () => driver.close(),
  };
  // The Queue reads these as capabilities: present only where the driver has them.
  if (driver.extendLease) tapped.extendLease = (entries) => driver.extendLease!(entries);
  if (driver.deadLetter) tapped.deadLetter = (entries) => driver.deadLetter!(entries);
  if (driver.classifyError) tapped.classifyError = driver.classifyError;
  return tapped;
}

/** The bridge hops among `messages`, sent at `sentAt`, with the driver's answer to each. */
export function sentHops(
  messages: readonly OutgoingMessage[],
  outcomes: readonly PublishOutcome[],
  sentAt: number,
): SentHop[] {
  return messages.flatMap((message, i) => {
    const state = hopStateOf(message);
    const ok = outcomes[i]?.ok === true;
    return state
      ? [{ eventId: message.eventId, delaySeconds: message.delaySeconds, ok, sentAt, ...state }]
      : [];
  });
}

/** Records every bridge hop the Queue sends through this driver, first publish included. */
export function recordingHops(driver: Driver): { driver: Driver; hops: SentHop[] } {
  const hops: SentHop[] = [];
  return {
    driver: tapPublishes(driver, (messages, outcomes, startedAt) => {
      hops.push(...sentHops(messages, outcomes, startedAt));
    }),
    hops,
  };
}

/**
 * The worst point of a crash between hops: a re-sent hop is in the queue, and the hop it
 * replaces was never acked. A publish that carries a hop goes through, `onResent` hears of it,
 * and then the publish never resolves, so the Queue never gets to ack the old hop.
 */
export function stallingAfterHopResend(driver: Driver, onResent: (hops: SentHop[]) => void): Driver {
  return tapPublishes(driver, async (messages, outcomes, startedAt) => {
    const hops = sentHops(messages, outcomes, startedAt);
    if (hops.length === 0) return;
    onResent(hops);
    await new Promise<never>(() => {});
  });
}
