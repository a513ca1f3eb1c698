import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { contentAddress, FilePayloadStore, isQueueError, type QueueError } from '@queueport/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'queueport-payload-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Bytes that differ at every position from one seed to another. */
function bytesOf(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

async function failure(run: () => Promise<unknown>): Promise<QueueError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isQueueError(error)) throw new Error(`expected a QueueError, got ${String(error)}`);
  return error;
}

const fileOf = (sha256: string) => path.join(root, sha256.slice(0, 2), sha256);

describe('FilePayloadStore', () => {
  it('stores 1 MiB under the SHA-256 of the bytes and reads the same bytes back', async () => {
    const store = new FilePayloadStore({ root });
    const bytes = bytesOf(MiB, 7);
    const reference = await store.put(bytes);
    expect(reference).toEqual({
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sizeBytes: MiB,
    });
    expect(Buffer.from(await store.get(reference)).equals(Buffer.from(bytes))).toBe(true);
    // Written aside and renamed: nothing but the payload is left in its folder.
    expect(await readdir(path.dirname(fileOf(reference.sha256)))).toEqual([reference.sha256]);
  });

  it('stores the same bytes once, whoever puts them', async () => {
    const store = new FilePayloadStore({ root });
    const first = await store.put(bytesOf(1000, 1));
    const second = await store.put(bytesOf(1000, 1));
    expect(second).toEqual(first);
    expect(await readdir(path.join(root, first.sha256.slice(0, 2)))).toEqual([first.sha256]);
  });

  it('answers NOT_FOUND for a payload that was deleted', async () => {
    const store = new FilePayloadStore({ root });
    const reference = await store.put(bytesOf(4096, 2));
    await rm(fileOf(reference.sha256));
    const error = await failure(() => store.get(reference));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toMatchObject({ payloadProblem: 'missing', sha256: reference.sha256 });
  });

  it('refuses a payload altered in place, of the same size or grown', async () => {
    const store = new FilePayloadStore({ root });
    const reference = await store.put(bytesOf(4096, 3));
    await writeFile(fileOf(reference.sha256), bytesOf(4096, 4));
    const same = await failure(() => store.get(reference));
    expect(same.code).toBe('INVALID_ENVELOPE');
    expect(same.details).toMatchObject({ payloadProblem: 'altered' });
    // The original bytes and one more: a prefix that matches must not pass for the whole.
    await writeFile(fileOf(reference.sha256), Buffer.concat([bytesOf(4096, 3), Buffer.from([0])]));
    expect((await failure(() => store.get(reference))).details.payloadProblem).toBe('altered');
  });

  it('refuses a reference whose size does not match what is stored', async () => {
    const store = new FilePayloadStore({ root });
    const reference = await store.put(bytesOf(4096, 5));
    const error = await failure(() => store.get({ ...reference, sizeBytes: 4095 }));
    expect(error.details.payloadProblem).toBe('altered');
  });

  it('bounds what it puts and reads', async () => {
    const store = new FilePayloadStore({ root, maxPayloadBytes: 1000 });
    const put = await failure(() => store.put(bytesOf(1001, 0)));
    expect(put.code).toBe('PAYLOAD_TOO_LARGE');
    const get = await failure(() => store.get({ sha256: 'a'.repeat(64), sizeBytes: 1001 }));
    expect(get.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('never builds a path from anything but a hex digest', async () => {
    const store = new FilePayloadStore({ root });
    for (const sha256 of ['../../etc/passwd', `${'a'.repeat(62)}/.`, 'A'.repeat(64), '']) {
      const error = await failure(() => store.get({ sha256, sizeBytes: 1 }));
      expect(error.code, sha256).toBe('INVALID_ARGUMENT');
    }
  });

  it('does not follow a link planted under a payload name out of its root', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'queueport-outside-'));
    try {
      const bytes = bytesOf(100, 9);
      const { sha256 } = contentAddress(bytes);
      await writeFile(path.join(outside, 'secret'), bytes);
      await mkdir(path.join(root, sha256.slice(0, 2)), { recursive: true });
      await symlink(path.join(outside, 'secret'), fileOf(sha256));
      const store = new FilePayloadStore({ root });
      const error = await failure(() => store.get({ sha256, sizeBytes: 100 }));
      expect(error.code).toBe('NOT_FOUND');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('prunes payloads and leftover temporary files by age, and keeps the young ones', async () => {
    const store = new FilePayloadStore({ root });
    const old = await store.put(bytesOf(100, 1));
    const young = await store.put(bytesOf(100, 2));
    const leftover = path.join(root, old.sha256.slice(0, 2), '.partial-crashed');
    await writeFile(leftover, 'half');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    await utimes(fileOf(old.sha256), twoHoursAgo, twoHoursAgo);
    await utimes(leftover, twoHoursAgo, twoHoursAgo);

    expect(await store.prune({ olderThanSeconds: 3600 })).toBe(1);
    expect((await failure(() => store.get(old))).code).toBe('NOT_FOUND');
    expect((await store.get(young)).byteLength).toBe(100);
    expect(await readdir(path.join(root, old.sha256.slice(0, 2)))).not.toContain('.partial-crashed');
    // Put again, a payload's age starts over.
    await utimes(fileOf(young.sha256), twoHoursAgo, twoHoursAgo);
    await store.put(bytesOf(100, 2));
    expect(await store.prune({ olderThanSeconds: 3600 })).toBe(0);
  });

  it('refuses a prune without a usable age', async () => {
    const store = new FilePayloadStore({ root });
    for (const olderThanSeconds of [-1, Number.NaN, '60' as unknown as number]) {
      expect((await failure(() => store.prune({ olderThanSeconds }))).code).toBe('INVALID_ARGUMENT');
    }
  });
});
