import { describe, expect, it } from 'vitest';
import {
  checkAdminSettings,
  eventIdOfBody,
  guardedAdmin,
  type QueueAdmin,
  QueueError,
} from '../src/driver-entry';

const failing = (error: unknown): QueueAdmin => ({
  createQueue: async () => {
    throw error;
  },
  deleteQueue: async () => {},
  stats: async () => ({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: null }),
  close: async () => {},
});

describe('guardedAdmin', () => {
  it('turns a raw client error into a QueueError, the secret in its message redacted', async () => {
    const raw = Object.assign(new Error('AUTH failed for password=hunter2hunter2'), {
      args: ['AUTH', 'hunter2hunter2'],
    });
    const error = await guardedAdmin(failing(raw), 'x admin')
      .createQueue({ name: 'q' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueError);
    expect(JSON.stringify(error)).not.toContain('hunter2hunter2');
  });

  it('masks the configured secrets in an error that falls back to INTERNAL, whatever their shape', async () => {
    // No known prefix and no key= around it: only the configured value can find it.
    const secret = 'Zq8sLm3vNpW4rT';
    const raw = new Error(`refused: ${secret} is not valid here`);
    const error = await guardedAdmin(failing(raw), 'x admin', undefined, { secrets: [secret] })
      .createQueue({ name: 'q' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(String((error as Error).message)).not.toContain(secret);
    expect(JSON.stringify((error as Error).cause)).not.toContain(secret);
  });

  it('lets the provider classifier decide, and passes QueueErrors and results through', async () => {
    const classified = new QueueError('UNAUTHORIZED', 'x: refused');
    const admin = guardedAdmin(failing(new Error('raw')), 'x admin', () => classified);
    await expect(admin.createQueue({ name: 'q' })).rejects.toBe(classified);
    expect(await admin.stats('x://q')).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: null });
    const own = new QueueError('NOT_FOUND', 'x: gone');
    await expect(guardedAdmin(failing(own), 'x admin').createQueue({ name: 'q' })).rejects.toBe(own);
  });

  it('keeps only the surface the admin has: no method appears that it lacks', () => {
    expect(Object.keys(guardedAdmin(failing(new Error('e')), 'x admin')).sort()).toEqual([
      'close',
      'createQueue',
      'deleteQueue',
      'stats',
    ]);
  });
});

describe('checkAdminSettings', () => {
  it('refuses an unknown setting by name, listing the known ones, and takes the known ones', () => {
    expect(() => checkAdminSettings({ fifo: true }, ['fifo'], 'x')).not.toThrow();
    expect(() => checkAdminSettings(undefined, ['fifo'], 'x')).not.toThrow();
    expect(() => checkAdminSettings({ fifoo: true }, ['fifo'], 'x')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'fifoo' } }),
    );
    expect(() => checkAdminSettings({ a: 1 }, [], 'x')).toThrow(/createQueue takes no setting "a"$/);
  });
});

describe('eventIdOfBody', () => {
  it('reads the event id of a stored body, and never throws on one that is not an envelope', () => {
    expect(eventIdOfBody('{"event_id":"pay_1:settled","v":1}')).toBe('pay_1:settled');
    expect(eventIdOfBody('{"event_id":42}')).toBeUndefined();
    expect(eventIdOfBody('null')).toBeUndefined();
    expect(eventIdOfBody('not json')).toBeUndefined();
  });
});
