import type { QueueCapability } from '../discovery/discovery-format';
import type { CapabilityCall, CapabilityHandler, CapabilityResult, SimulatorState } from './capability-call';
import { idempotently } from './idempotent-call';
import { booleanOr, integerOr, optionalString, requiredString } from './params';
import { publish, publishBatch } from './publishing';
import {
  CONSUME_DEFAULT_MAX_MESSAGES,
  DLQ_LIST_DEFAULT_MAX_MESSAGES,
  QUEUE_DEFAULTS,
  REDRIVE_DEFAULT_MAX_MESSAGES,
} from './queue-rules';
import { SimulatorError } from './simulator-error';
import type { QueueType, StoredQueue } from './stored-queue';

/** Every queue capability the simulator answers, by discovery id. */
export function capabilityHandlers(state: SimulatorState): Record<QueueCapability, CapabilityHandler> {
  const { store } = state;
  const iso = (ms: number) => new Date(ms).toISOString();
  const done = (data: Record<string, unknown>): CapabilityResult => ({ data, replayed: false });
  const queueOf = (call: CapabilityCall) => store.get(requiredString(call.params, 'queue'));

  const deadLettersOf = (queue: StoredQueue): StoredQueue => {
    const deadLetters = store.deadLettersOf(queue);
    if (!deadLetters) {
      throw new SimulatorError(
        'VALIDATION_ERROR',
        `the queue ${queue.settings.name} has no dead-letter queue`,
        {
          hint: 'create the queue with dead_letter_queue set',
        },
      );
    }
    return deadLetters;
  };

  return {
    'queue.create': (call) => {
      const p = call.params;
      const type = optionalString(p, 'type') ?? QUEUE_DEFAULTS.type;
      if (type !== 'standard' && type !== 'fifo') {
        throw new SimulatorError('VALIDATION_ERROR', 'request field /type must be standard or fifo');
      }
      const settings = {
        name: requiredString(p, 'name'),
        type: type as QueueType,
        deadLetterQueue: optionalString(p, 'dead_letter_queue') ?? null,
        maxRetries: integerOr(p, 'max_retries', QUEUE_DEFAULTS.maxRetries),
        messageRetentionDays: integerOr(p, 'message_retention_days', QUEUE_DEFAULTS.messageRetentionDays),
        visibilityTimeoutDefault: integerOr(
          p,
          'visibility_timeout_default',
          QUEUE_DEFAULTS.visibilityTimeoutSeconds,
        ),
        enablePriority: booleanOr(p, 'enable_priority', QUEUE_DEFAULTS.enablePriority),
        createdAt: call.now,
      };
      const scope = { apiKey: call.apiKey, capability: call.capability };
      return idempotently(
        state.idempotency,
        scope,
        optionalString(p, 'idempotency_key'),
        p,
        call.now,
        () => ({
          queue: store.describe(store.create(settings), call.now),
        }),
      );
    },

    'queue.list': (call) => done({ queues: store.all().map((queue) => store.describe(queue, call.now)) }),

    'queue.delete': (call) => {
      store.delete(requiredString(call.params, 'queue'));
      return done({ deleted: true });
    },

    'queue.publish': (call) => publish(state, call),

    'queue.publish_batch': (call) => publishBatch(state, call),

    'queue.consume': (call) => {
      const queue = queueOf(call);
      const max = integerOr(call.params, 'max_messages', CONSUME_DEFAULT_MAX_MESSAGES);
      const timeout = integerOr(call.params, 'visibility_timeout', queue.settings.visibilityTimeoutDefault);
      const messages = queue.receive(max, timeout, call.now, store.deadLettersOf(queue));
      return done({
        messages: messages.map((m) => ({
          message_id: m.id,
          receipt_handle: m.receiptHandle,
          payload: m.payload,
          delivery_count: m.deliveryCount,
          enqueued_at: iso(m.enqueuedAt),
        })),
      });
    },

    'queue.ack': (call) => {
      queueOf(call).ack(requiredString(call.params, 'receipt_handle'), call.now);
      return done({ acknowledged: true });
    },

    'queue.nack': (call) => {
      const queue = queueOf(call);
      const handle = requiredString(call.params, 'receipt_handle');
      const delay = integerOr(call.params, 'delay_seconds', 0);
      const outcome = queue.nack(handle, delay, call.now, store.deadLettersOf(queue));
      return done({ requeued: outcome === 'requeued', dead_lettered: outcome === 'dead-lettered' });
    },

    'queue.dlq.list': (call) => {
      const deadLetters = deadLettersOf(queueOf(call));
      const max = integerOr(call.params, 'max_messages', DLQ_LIST_DEFAULT_MAX_MESSAGES);
      return done({
        messages: deadLetters.peek(max, call.now).map((m) => ({
          message_id: m.id,
          payload: m.payload,
          delivery_count: m.deliveryCount,
          reason: m.deadLetter?.reason ?? null,
          // A message published straight into the dead-letter queue arrived there when it was published.
          dead_lettered_at: iso(m.deadLetter?.at ?? m.enqueuedAt),
        })),
      });
    },

    'queue.dlq.redrive': (call) => {
      const queue = queueOf(call);
      const max = integerOr(call.params, 'max_messages', REDRIVE_DEFAULT_MAX_MESSAGES);
      return done({ redriven: deadLettersOf(queue).moveTo(queue, max, call.now) });
    },
  };
}
