import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { canonicalJson, type JsonValue, type PayloadRef } from '@queueport/core';

/** Large enough for any transcript here; the portable limit applies to the envelope, not to blobs. */
export const MAX_BLOB_BYTES = 16 * 1024 * 1024;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** What the publisher gets back for a stored payload: the reference, and how big the payload was. */
export interface StoredBlob extends PayloadRef {
  bytes: number;
}

/**
 * A content-addressed blob store in a local folder: a payload is written as its RFC 8785
 * canonical JSON, under a file named by the SHA-256 of those bytes. That digest is exactly what
 * an envelope's `payload_ref.sha256` (and `payload_sha256`) must say, so the reference names the
 * bytes, not a place: whoever reads them can tell whether they are still the ones published.
 *
 * In production this is S3, GCS or a database table behind a signed URL; only `uri` changes.
 */
export class ContentAddressedStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** A store in a fresh temporary folder; `destroy()` removes it. */
  static async temporary(prefix = 'queueport-blobs-'): Promise<ContentAddressedStore> {
    return new ContentAddressedStore(await mkdtemp(join(tmpdir(), prefix)));
  }

  /** Stores a payload and returns its reference. Storing the same payload twice is one file. */
  async put(value: JsonValue): Promise<StoredBlob> {
    const text = canonicalJson(value, { maxBytes: MAX_BLOB_BYTES });
    const bytes = Buffer.from(text, 'utf8');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = this.pathOf(sha256);
    // Written aside, then renamed: a reader never sees half a blob under its final name.
    const partial = join(this.root, `.partial-${randomUUID()}`);
    await writeFile(partial, bytes, { flag: 'wx' });
    await rename(partial, path);
    return { uri: pathToFileURL(path).href, sha256, bytes: bytes.length };
  }

  pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a lower-case hex SHA-256: ${sha256}`);
    return join(this.root, sha256);
  }

  async destroy(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** Why a reference was not honoured. Only `missing` may fix itself (a store that lags behind). */
export type PayloadRefProblem = 'untrusted-uri' | 'missing' | 'too-large' | 'digest-mismatch' | 'not-json';

export class PayloadRefError extends Error {
  readonly problem: PayloadRefProblem;

  constructor(problem: PayloadRefProblem, message: string) {
    super(message);
    this.name = 'PayloadRefError';
    this.problem = problem;
  }
}

export interface FetchedPayload {
  value: JsonValue;
  bytes: number;
  /** The SHA-256 of the bytes read: equal to the reference's, or the fetch would have thrown. */
  sha256: string;
}

/**
 * The receiver's side: reads the payload a reference names and checks it against the digest the
 * (signed) envelope carries, before anything acts on it. A reference is followed only into the
 * folder the receiver trusts, and only to the file named by its own digest: the envelope does not
 * get to point the receiver at an arbitrary file (or, over HTTP, an arbitrary host).
 */
export async function fetchByRef(
  ref: PayloadRef,
  trustedRoot: string,
  maxBytes = MAX_BLOB_BYTES,
): Promise<FetchedPayload> {
  const path = trustedPath(ref, resolve(trustedRoot));
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new PayloadRefError('missing', `no blob at ${ref.uri}`);
  }
  if (size > maxBytes) throw new PayloadRefError('too-large', `blob is ${size} bytes, over ${maxBytes}`);
  const bytes = await readFile(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== ref.sha256) {
    throw new PayloadRefError(
      'digest-mismatch',
      `blob sha256 is ${sha256}, the envelope's payload_ref says ${ref.sha256}: it changed after it was published`,
    );
  }
  try {
    return { value: JSON.parse(bytes.toString('utf8')) as JsonValue, bytes: bytes.length, sha256 };
  } catch {
    throw new PayloadRefError('not-json', 'blob matches its digest but is not JSON');
  }
}

function trustedPath(ref: PayloadRef, root: string): string {
  let url: URL;
  try {
    url = new URL(ref.uri);
  } catch {
    throw new PayloadRefError('untrusted-uri', `payload_ref.uri is not a URL: ${ref.uri}`);
  }
  if (url.protocol !== 'file:' || url.search !== '' || url.hash !== '') {
    throw new PayloadRefError('untrusted-uri', `payload_ref.uri is not a plain file: URL: ${ref.uri}`);
  }
  const path = fileURLToPath(url);
  if (dirname(path) !== root || basename(path) !== ref.sha256) {
    throw new PayloadRefError(
      'untrusted-uri',
      `payload_ref.uri must name ${join(root, ref.sha256)}, the trusted store's file for its sha256`,
    );
  }
  return path;
}
