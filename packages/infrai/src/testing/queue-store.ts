import { SimulatorError } from './simulator-error';
import { type QueueSettings, StoredQueue } from './stored-queue';

/** A queue as `queue.list` and `queue.create` answer it. */
export interface QueueDescription {
  name: string;
  type: QueueSettings['type'];
  dead_letter_queue: string | null;
  max_retries: number;
  message_retention_days: number;
  visibility_timeout_default: number;
  enable_priority: boolean;
  created_at: string;
  stats: {
    available: number;
    in_flight: number;
    delayed: number;
    dead_letters: number | null;
    oldest_available_age_seconds: number | null;
  };
}

/**
 * The project's queues. One project stands behind every API key the simulator accepts (several
 * keys are rotation, not tenants), so queues are shared while idempotency and rate limits are
 * per key.
 */
export class QueueStore {
  readonly #queues = new Map<string, StoredQueue>();

  create(settings: QueueSettings): StoredQueue {
    if (this.#queues.has(settings.name)) {
      throw new SimulatorError('QUEUE_ALREADY_EXISTS', `a queue named ${settings.name} exists already`, {
        hint: 'choose another name, or delete the queue first',
      });
    }
    if (settings.deadLetterQueue !== null && !this.#queues.has(settings.deadLetterQueue)) {
      throw new SimulatorError(
        'DEAD_LETTER_QUEUE_NOT_FOUND',
        `the dead-letter queue ${settings.deadLetterQueue} does not exist`,
        { hint: 'create the dead-letter queue first' },
      );
    }
    const queue = new StoredQueue(settings);
    this.#queues.set(settings.name, queue);
    return queue;
  }

  get(name: string): StoredQueue {
    const queue = this.#queues.get(name);
    if (!queue) {
      throw new SimulatorError('QUEUE_NOT_FOUND', `no queue named ${name}`, {
        hint: 'create it with queue.create',
      });
    }
    return queue;
  }

  find(name: string): StoredQueue | undefined {
    return this.#queues.get(name);
  }

  delete(name: string): void {
    this.get(name);
    this.#queues.delete(name);
  }

  all(): StoredQueue[] {
    return [...this.#queues.values()];
  }

  /** Undefined without one, or once it was deleted: the queue then behaves as having none. */
  deadLettersOf(queue: StoredQueue): StoredQueue | undefined {
    const name = queue.settings.deadLetterQueue;
    return name === null ? undefined : this.#queues.get(name);
  }

  describe(queue: StoredQueue, now: number): QueueDescription {
    const s = queue.settings;
    const counts = queue.counts(now);
    const deadLetters = this.deadLettersOf(queue);
    return {
      name: s.name,
      type: s.type,
      dead_letter_queue: s.deadLetterQueue,
      max_retries: s.maxRetries,
      message_retention_days: s.messageRetentionDays,
      visibility_timeout_default: s.visibilityTimeoutDefault,
      enable_priority: s.enablePriority,
      created_at: new Date(s.createdAt).toISOString(),
      stats: {
        available: counts.available,
        in_flight: counts.inFlight,
        delayed: counts.delayed,
        dead_letters: deadLetters ? deadLetters.size(now) : null,
        oldest_available_age_seconds: counts.oldestAvailableAgeSeconds,
      },
    };
  }
}
