import { unknownOptionError } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

const KNOWN = ['region', 'timeoutMs', 'tls'] as const;

describe('unknownOptionError', () => {
  it('names a near miss, case-insensitively, and suggests the real option', () => {
    const error = unknownOptionError('demo', 'TimeoutMS', KNOWN);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(
      'demo:// URLs take no option "TimeoutMS"; did you mean timeoutMs? (they take region, timeoutMs, tls)',
    );
    expect(error.details).toEqual({ field: 'TimeoutMS', suggestion: 'timeoutMs' });
    expect(unknownOptionError('demo', 'regoin', KNOWN).details).toEqual({
      field: 'regoin',
      suggestion: 'region',
    });
  });

  it('hides a name more than two edits from every option', () => {
    const error = unknownOptionError('demo', 'colour', KNOWN);
    expect(error.message).toBe(
      'demo:// URLs take no such option (its name is not shown: it may be a secret); they take region, timeoutMs, tls',
    );
    expect(error.message).not.toContain('colour');
    expect(error.details).toEqual({ field: '(not shown)' });
  });

  it('never shows a name longer than 64 characters, even when an extra rule calls it near', () => {
    const long = `region${'x'.repeat(60)}`;
    const error = unknownOptionError('demo', long, KNOWN, { isNear: () => true });
    expect(error.message).not.toContain(long);
    expect(error.details).toEqual({ field: '(not shown)' });
  });

  it('applies an adapter rule for near misses, and hides names that do not read as names', () => {
    const prefix = unknownOptionError('demo', 'time', KNOWN, {
      isNear: (typed, option) => option.startsWith(typed),
    });
    expect(prefix.details).toEqual({ field: 'time', suggestion: 'timeoutMs' });
    const shaped = unknownOptionError('demo', 'tl\n', KNOWN);
    expect(shaped.details).toEqual({ field: '(not shown)' });
  });

  it('never repeats a planted token in the message or the details', () => {
    const token = 'ifr_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const error = unknownOptionError('demo', token, KNOWN);
    expect(error.message).not.toContain(token);
    expect(error.message).not.toContain('9f8e7d6c');
    expect(JSON.stringify(error.details)).not.toContain(token);
    expect(JSON.stringify(error.details)).not.toContain('9f8e7d6c');
  });
});
