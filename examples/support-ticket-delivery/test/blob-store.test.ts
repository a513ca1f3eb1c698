import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { payloadDigest, prepareEnvelope } from '@queueport/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentAddressedStore, fetchByRef, type PayloadRefProblem } from '../src/blob-store';

const ticket = { ticket_id: 'ticket_1', transcript: [{ seq: 1, text: 'hello' }], subject: 'Ünïcode ✓' };

async function problemOf(promise: Promise<unknown>): Promise<PayloadRefProblem | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { problem?: PayloadRefProblem }).problem;
  }
}

describe('content-addressed blob store', () => {
  let store: ContentAddressedStore;
  beforeEach(async () => {
    store = await ContentAddressedStore.temporary();
  });
  afterEach(async () => {
    await store.destroy();
  });

  it("names a blob by the digest core puts in an envelope's payload_sha256", async () => {
    const blob = await store.put(ticket);
    expect(blob.sha256).toBe(payloadDigest(ticket));
    const envelope = prepareEnvelope({
      event_id: 'ticket_1:closed:v1',
      type: 'ticket.closed',
      payload_ref: { uri: blob.uri, sha256: blob.sha256 },
    });
    expect(envelope.payload_sha256).toBe(blob.sha256);
    const fetched = await fetchByRef(blob, store.root);
    expect(fetched.value).toEqual(ticket);
    expect(fetched.sha256).toBe(blob.sha256);
    // The same payload again is the same file.
    expect(await store.put({ ...ticket })).toEqual(blob);
  });

  it('refuses bytes that changed after the reference was made', async () => {
    const blob = await store.put(ticket);
    await writeFile(store.pathOf(blob.sha256), JSON.stringify({ ...ticket, subject: 'changed' }));
    expect(await problemOf(fetchByRef(blob, store.root))).toBe('digest-mismatch');
  });

  it('follows a reference only to the file its own digest names in the trusted store', async () => {
    const blob = await store.put(ticket);
    const elsewhere = await mkdtemp(join(tmpdir(), 'queueport-elsewhere-'));
    try {
      // The right bytes, in a folder the receiver does not trust.
      await copyFile(store.pathOf(blob.sha256), join(elsewhere, blob.sha256));
      const outside = { uri: pathToFileURL(join(elsewhere, blob.sha256)).href, sha256: blob.sha256 };
      expect(await problemOf(fetchByRef(outside, store.root))).toBe('untrusted-uri');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
    const renamed = { uri: pathToFileURL(join(store.root, 'transcript.json')).href, sha256: blob.sha256 };
    expect(await problemOf(fetchByRef(renamed, store.root))).toBe('untrusted-uri');
    const remote = { uri: `https://blobs.example.com/${blob.sha256}`, sha256: blob.sha256 };
    expect(await problemOf(fetchByRef(remote, store.root))).toBe('untrusted-uri');
  });

  it('says a blob that is not there is missing (the one problem a retry may fix)', async () => {
    const sha256 = '0'.repeat(64);
    const ref = { uri: pathToFileURL(store.pathOf(sha256)).href, sha256 };
    expect(await problemOf(fetchByRef(ref, store.root))).toBe('missing');
  });
});
