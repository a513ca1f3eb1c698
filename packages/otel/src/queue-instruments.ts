import type { Counter, Histogram } from '@opentelemetry/api';
import type { InstrumentFactory } from './instrument-factory';

/**
 * The instruments a Queue and its consumers report through. Durations are in seconds, as the
 * messaging conventions ask; the standard names come first, queueport's own are `queueport.`.
 */
export interface QueueInstruments {
  sent: Counter;
  consumed: Counter;
  operationDuration: Histogram;
  processDuration: Histogram;
  duplicates: Counter;
  acked: Counter;
  released: Counter;
  deadLettered: Counter;
  settleFailures: Counter;
  invalid: Counter;
  retries: Counter;
}

export function queueInstruments(instruments: InstrumentFactory): QueueInstruments {
  const { seconds } = instruments;
  const messages = (name: string, description: string) => instruments.counter(name, '{message}', description);
  return {
    sent: messages(
      'messaging.client.sent.messages',
      'Messages a publish sent to the provider, or tried to (error.type says which failed).',
    ),
    consumed: messages('messaging.client.consumed.messages', 'Deliveries receives handed out.'),
    operationDuration: seconds(
      'messaging.client.operation.duration',
      'Duration of a publish or a receive that brought messages.',
    ),
    processDuration: seconds('messaging.process.duration', 'Duration of a handler run over one delivery.'),
    duplicates: messages(
      'queueport.publish.duplicates',
      'Publishes the provider absorbed as repeats of an event id (dedupe hits), where it says so.',
    ),
    acked: messages('queueport.messages.acked', 'Deliveries acked.'),
    released: messages(
      'queueport.messages.released',
      'Deliveries released to come back (retries, busy, closing).',
    ),
    deadLettered: messages(
      'queueport.messages.dead_lettered',
      "Deliveries given up: moved to the provider's dead letters, or handed to a consumer's sink.",
    ),
    settleFailures: messages(
      'queueport.settle.failures',
      'Acks, releases and dead-letter moves the provider refused or did not answer.',
    ),
    invalid: messages(
      'queueport.messages.invalid',
      'Received bodies that never reached a handler (not an envelope, schema, payload store).',
    ),
    retries: instruments.retries(),
  };
}
