import type { Driver, DriverMessage, OutgoingMessage } from '@queueport/core/driver';

/** Every call passed through; closing is left to whoever owns the driver underneath. */
function delegate(inner: Driver, overrides: Partial<Driver>): Driver {
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    publish: (messages) => inner.publish(messages),
    receive: (request) => inner.receive(request),
    ack: (receipts) => inner.ack(receipts),
    release: (entries) => inner.release(entries),
    ...(inner.extendLease ? { extendLease: (entries) => inner.extendLease!(entries) } : {}),
    ...(inner.deadLetter ? { deadLetter: (entries) => inner.deadLetter!(entries) } : {}),
    ...(inner.classifyError ? { classifyError: (error) => inner.classifyError!(error) } : {}),
    close: async () => {},
    ...overrides,
  };
}

/**
 * A provider that delivers every message twice: each publish stores a second copy under another
 * dedupe key, so its own dedupe keeps both, and each comes out with a receipt of its own, as an
 * at-least-once provider's redelivery does.
 */
export function duplicatingDriver(inner: Driver): Driver {
  return delegate(inner, {
    async publish(messages: readonly OutgoingMessage[]) {
      const outcomes = await inner.publish(messages);
      await inner.publish(
        messages.map((message) => ({ ...message, dedupeKey: `${message.dedupeKey}:again` })),
      );
      return outcomes;
    },
  });
}

/**
 * A provider that loses messages: the first `count` it hands out (of `eventId` only, if given)
 * are acked underneath and never reach the consumer. `dropped` names them.
 */
export function droppingDriver(
  inner: Driver,
  options: { count?: number; eventId?: string } = {},
): { driver: Driver; dropped: string[] } {
  const count = options.count ?? 1;
  const dropped: string[] = [];
  const driver = delegate(inner, {
    async receive(request) {
      const messages = await inner.receive(request);
      const kept: DriverMessage[] = [];
      for (const message of messages) {
        const eventId = eventIdOf(message.body);
        if (dropped.length < count && (options.eventId === undefined || options.eventId === eventId)) {
          await inner.ack([message.receipt]);
          dropped.push(eventId);
        } else kept.push(message);
      }
      return kept;
    },
  });
  return { driver, dropped };
}

function eventIdOf(body: string): string {
  return (JSON.parse(body) as { event_id: string }).event_id;
}
