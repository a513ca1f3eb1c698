import type { OutgoingMessage, PublishOutcome } from '../driver';
import type { Envelope } from '../envelope';
import type { PublishedOutcome, QueueTelemetry } from './telemetry';
import { withTraceContext } from './trace-context';

interface PreparedMessage {
  readonly envelope: Envelope;
  readonly outgoing: OutgoingMessage;
  readonly sizeBytes: number;
}

/**
 * A publish reported to telemetry: each message carries its publish span's trace context
 * where it fits, and the spans end with the provider's answers (or the error that cut them off).
 */
export async function tracedPublish(
  telemetry: QueueTelemetry,
  prepared: readonly PreparedMessage[],
  options: { maxBodyBytes: number; reportsDuplicates: boolean },
  send: (messages: readonly OutgoingMessage[]) => Promise<PublishOutcome[]>,
): Promise<PublishOutcome[]> {
  const scope = telemetry.publish(
    prepared.map(({ envelope, sizeBytes }) => ({
      eventId: envelope.event_id,
      eventType: envelope.type,
      sizeBytes,
    })),
  );
  const messages = prepared.map(({ outgoing, sizeBytes }, index) =>
    withTraceContext(outgoing, scope.traceContext(index), sizeBytes, options.maxBodyBytes),
  );
  let outcomes: PublishOutcome[];
  try {
    outcomes = await send(messages);
  } catch (error) {
    scope.end(undefined, error);
    throw error;
  }
  scope.end(
    outcomes.map(
      (outcome): PublishedOutcome =>
        outcome.ok
          ? {
              ok: true,
              messageId: outcome.messageId,
              duplicate: options.reportsDuplicates && outcome.duplicate === true,
            }
          : { ok: false, error: outcome.error },
    ),
  );
  return outcomes;
}
