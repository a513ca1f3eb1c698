import { eventNames, type ListenerErrorEvent, QueueError, TypedEmitter } from '@queueport/core';
import { describe, expect, it, vi } from 'vitest';

interface TestEvents {
  tick: { n: number };
  trouble: { error: unknown };
  error: { kind: 'boom' | 'bang'; error: unknown } | ListenerErrorEvent;
}

const names = eventNames<TestEvents>({ tick: true, trouble: true, error: true });

function emitter() {
  const warn = vi.fn();
  const events = new TypedEmitter<TestEvents>({
    source: 'test source',
    names,
    problems: ['trouble'],
    logger: { warn },
  });
  return { events, warn };
}

describe('TypedEmitter', () => {
  it('calls listeners in subscription order and says whether anyone heard', () => {
    const { events } = emitter();
    const seen: string[] = [];
    expect(events.emit('tick', { n: 0 })).toBe(false);
    events.on('tick', ({ n }) => void seen.push(`a${n}`));
    events.on('tick', ({ n }) => void seen.push(`b${n}`));
    expect(events.emit('tick', { n: 1 })).toBe(true);
    expect(seen).toEqual(['a1', 'b1']);
  });

  it('a listener added or removed during an emit takes effect from the next one', () => {
    const { events } = emitter();
    const seen: string[] = [];
    const late = () => void seen.push('late');
    const second = () => void seen.push('second');
    events.on('tick', () => {
      seen.push('first');
      events.on('tick', late);
      events.off('tick', second);
    });
    events.on('tick', second);
    events.emit('tick', { n: 1 });
    expect(seen).toEqual(['first', 'second']);
    seen.length = 0;
    events.off('tick', late);
    events.emit('tick', { n: 2 });
    expect(seen).toEqual(['first']);
  });

  it('once, off and unsubscribe each remove exactly one subscription', () => {
    const { events } = emitter();
    const listener = vi.fn();
    events.on('tick', listener);
    const stop = events.on('tick', listener);
    events.once('tick', listener);
    events.emit('tick', { n: 1 });
    expect(listener).toHaveBeenCalledTimes(3);
    stop();
    stop();
    events.emit('tick', { n: 2 });
    expect(listener).toHaveBeenCalledTimes(4);
    events.off('tick', listener);
    expect(events.has('tick')).toBe(false);
    expect(events.emit('tick', { n: 3 })).toBe(false);
  });

  it('refuses an unknown event name and a listener that is not a function', () => {
    const { events } = emitter();
    expect(() => events.on('tock' as 'tick', () => {})).toThrow(QueueError);
    expect(() => events.once('tick', null as never)).toThrow(/must be a function/);
  });

  it('an error or problem event with no listener is logged once per kind; others are not logged', () => {
    const { events, warn } = emitter();
    events.emit('tick', { n: 1 });
    events.emit('error', { kind: 'boom', error: new QueueError('UNAVAILABLE', 'provider down') });
    events.emit('error', { kind: 'boom', error: new QueueError('UNAVAILABLE', 'provider down again') });
    events.emit('error', { kind: 'bang', error: new Error('Bearer abc.def.ghi refused') });
    events.emit('trouble', { error: 'token=s3cr3t' });
    events.emit('trouble', { error: 'again' });
    expect(warn.mock.calls.map(([line]) => line)).toEqual([
      expect.stringContaining(
        `test source: nothing listens to 'error' (boom): QueueError UNAVAILABLE: provider down.`,
      ),
      expect.stringContaining(`'error' (bang): Error: Bearer [REDACTED] refused`),
      expect.stringContaining(`nothing listens to 'trouble': token=[REDACTED]`),
    ]);
  });

  it('does not log what was heard elsewhere', () => {
    const { events, warn } = emitter();
    events.emit('error', { kind: 'boom', error: new Error('x') }, true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('a listener that throws or rejects becomes an error event; a failing error listener is logged', async () => {
    const { events, warn } = emitter();
    const errors: unknown[] = [];
    events.on('tick', () => {
      throw new Error('sync bug');
    });
    events.on('tick', () => Promise.reject(new Error('async bug')));
    const after = vi.fn();
    events.on('tick', after);
    const onError = vi.fn((payload: TestEvents['error']) => {
      errors.push(payload);
      throw new Error('error listener bug');
    });
    events.on('error', onError);
    events.emit('tick', { n: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(after).toHaveBeenCalledTimes(1);
    expect(errors).toEqual([
      { kind: 'listener', event: 'tick', error: new Error('sync bug') },
      { kind: 'listener', event: 'tick', error: new Error('async bug') },
    ]);
    // The error listener itself failed twice: logged once, without looping.
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain(`'error' (listener) (a 'error' listener failed)`);
  });

  it('a logger that throws breaks nothing', () => {
    const events = new TypedEmitter<TestEvents>({
      source: 's',
      names,
      logger: {
        warn: () => {
          throw new Error('logger down');
        },
      },
    });
    expect(() => events.emit('error', { kind: 'boom', error: 1 })).not.toThrow();
  });
});
