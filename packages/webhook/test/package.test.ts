import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_SDK_VERSION } from '../src';

describe('package', () => {
  it('User-Agent version matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(WEBHOOK_SDK_VERSION).toBe(pkg.version);
  });

  it('the root entry does not pull in the reference receiver', async () => {
    const root = await import('../src');
    expect(root).not.toHaveProperty('startReferenceReceiver');
    const receiver = await import('../src/reference-receiver');
    expect(typeof receiver.startReferenceReceiver).toBe('function');
  });
});
