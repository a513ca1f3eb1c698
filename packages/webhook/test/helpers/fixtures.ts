import { randomBytes } from 'node:crypto';
import type { Destination } from '../../src';

/** A fresh Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function destination(url: string, extra: Partial<Destination> = {}): Destination {
  return { id: 'dest-1', url, ...extra };
}

export const LOOPBACK_SSRF = { allowHttp: true, allowLoopback: true } as const;
