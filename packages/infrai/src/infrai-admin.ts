import { randomUUID } from 'node:crypto';
import type { CreateQueueRequest, DeadLetterRecord, QueueStats } from '@queueport/core';
import {
  checkAdminSettings,
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  eventIdOfBody,
  type QueueAdmin,
  QueueError,
} from '@queueport/core/driver';
import type { QueueCreateRequest } from './generated/queue-types';
import { unwrapPayload } from './message-payload';
import type { InfraiHttp } from './wire/infrai-http';

export interface InfraiAdminOptions {
  http: InfraiHttp;
  /** The URL (infrai://…) that opens a queue of this name. */
  urlOf(queueName: string): string;
  /** The queue's name for one of this admin's URLs; refuses any other. */
  locate(url: string): string;
}

const SETTINGS = ['fifo', 'retentionDays', 'visibilityTimeoutSeconds', 'enablePriority'];
const DEAD_LETTER_SUFFIX = '-dlq';
/** Infrai's names hold 80 characters, and the dead-letter queue's adds its suffix. */
const MAX_NAME_WITH_DEAD_LETTERS = 80 - DEAD_LETTER_SUFFIX.length;

/**
 * The admin surface over Infrai's queue routes: scratch queues with a dead-letter queue, depth
 * and age from `queue.list`, dead letters listed and redriven. Infrai documents no purge.
 */
export function infraiAdmin({ http, urlOf, locate }: InfraiAdminOptions): QueueAdmin {
  const queueOf = async (name: string) => {
    const listed = await http.call('queue.list', {});
    const queue = listed.queues.find((q) => q.name === name);
    if (!queue) throw new QueueError('NOT_FOUND', `infrai: no queue named ${name}`);
    return queue;
  };
  return {
    async createQueue(request: CreateQueueRequest): Promise<string> {
      const settings = request.settings ?? {};
      checkAdminSettings(settings, SETTINGS, 'infrai');
      // The settings' values are the caller's, of any type: Infrai's schema checks them below,
      // by field, before any call.
      const shared: Pick<QueueCreateRequest, 'type' | 'message_retention_days'> = {
        ...(settings.fifo === true ? { type: 'fifo' } : {}),
        ...(settings.retentionDays !== undefined
          ? { message_retention_days: settings.retentionDays as number }
          : {}),
      };
      // Every queue gets dead letters: the request's redrive, else core's default, the same on
      // every provider, so a queue made without one never redelivers forever.
      const redriveAfterReceives = request.redriveAfterReceives ?? DEFAULT_REDRIVE_AFTER_RECEIVES;
      if (!Number.isSafeInteger(redriveAfterReceives) || redriveAfterReceives < 1) {
        throw new QueueError('INVALID_ARGUMENT', 'infrai: redriveAfterReceives must be a whole number >= 1', {
          details: { field: 'redriveAfterReceives' },
        });
      }
      if (request.name.length > MAX_NAME_WITH_DEAD_LETTERS) {
        throw new QueueError(
          'INVALID_ARGUMENT',
          `infrai: a queue has a name of at most ${MAX_NAME_WITH_DEAD_LETTERS} characters (its dead-letter queue is <name>${DEAD_LETTER_SUFFIX})`,
          { details: { field: 'name' } },
        );
      }
      const deadLetter = `${request.name}${DEAD_LETTER_SUFFIX}`;
      const main: Omit<QueueCreateRequest, 'idempotency_key'> = {
        name: request.name,
        ...shared,
        // Infrai dead-letters after max_retries + 1 deliveries.
        dead_letter_queue: deadLetter,
        max_retries: redriveAfterReceives - 1,
        ...(settings.visibilityTimeoutSeconds !== undefined
          ? { visibility_timeout_default: settings.visibilityTimeoutSeconds as number }
          : {}),
        ...(settings.enablePriority !== undefined
          ? { enable_priority: settings.enablePriority as boolean }
          : {}),
      };
      // What Infrai's schema forbids (a name, a redrive past its max_retries) is refused here,
      // by field, before any call.
      http.validator.checkRequest('queue.create', { ...main, idempotency_key: 'checked-here' });
      // Refused before anything is made, so a failed create never leaves a stray dead-letter queue.
      const taken = new Set((await http.call('queue.list', {})).queues.map((q) => q.name));
      for (const name of [request.name, deadLetter]) {
        if (taken.has(name)) {
          throw new QueueError('INVALID_ARGUMENT', `infrai: a queue named ${name} exists already`, {
            details: { field: 'name' },
          });
        }
      }
      // Resource-creating calls need an explicit key; a fresh one, since this create is meant.
      await http.call('queue.create', { name: deadLetter, ...shared, idempotency_key: randomUUID() });
      try {
        await http.call('queue.create', { ...main, idempotency_key: randomUUID() });
      } catch (error) {
        // Best effort: the dead-letter queue this call made goes, so a retry starts clean.
        await http.call('queue.delete', { queue: deadLetter }).catch(() => {});
        throw error;
      }
      return urlOf(request.name);
    },

    async deleteQueue(url: string): Promise<void> {
      const name = locate(url);
      const queue = await queueOf(name);
      await http.call('queue.delete', { queue: name });
      // Only the dead-letter queue createQueue made goes with it; a shared one stays.
      if (queue.dead_letter_queue === `${name}${DEAD_LETTER_SUFFIX}`) {
        await http.call('queue.delete', { queue: queue.dead_letter_queue });
      }
    },

    async stats(url: string): Promise<QueueStats> {
      const queue = await queueOf(locate(url));
      const stats = queue.stats;
      return {
        depth: stats ? stats.available + stats.in_flight + stats.delayed : null,
        oldestReadyAgeSeconds: stats?.oldest_available_age_seconds ?? null,
        deadLetters: stats?.dead_letters ?? null,
      };
    },

    async listDeadLetters(url: string, { limit }: { limit: number }): Promise<DeadLetterRecord[]> {
      if (!(limit >= 1)) return [];
      const answer = await http.call('queue.dlq.list', {
        queue: locate(url),
        max_messages: Math.max(1, Math.min(limit, 100)),
      });
      return answer.messages.map((m) => {
        const { body, attributes } = unwrapPayload(m.payload);
        const at = m.dead_lettered_at ? Date.parse(m.dead_lettered_at) : Number.NaN;
        return {
          messageId: m.message_id,
          eventId: eventIdOfBody(body),
          body,
          attributes,
          receiveCount: m.delivery_count,
          reason: m.reason ?? undefined,
          at: Number.isNaN(at) ? undefined : at,
        };
      });
    },

    async redriveDeadLetters(url: string, { limit }: { limit: number }): Promise<number> {
      if (!(limit >= 1)) return 0;
      const answer = await http.call('queue.dlq.redrive', {
        queue: locate(url),
        max_messages: Math.max(1, Math.min(limit, 1000)),
      });
      return answer.redriven;
    },

    async close(): Promise<void> {},
  };
}
