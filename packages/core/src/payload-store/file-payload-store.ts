import { randomUUID } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type Clock, systemClock } from '../clock';
import { QueueError } from '../errors';
import {
  checkMaxPayloadBytes,
  checkReference,
  contentAddress,
  payloadMissing,
  payloadTooLarge,
  verifyContent,
} from './content-address';
import type { PayloadReference, PayloadStore, PruneOptions } from './payload-store';

/** What a store reads by default: the largest body any supported provider takes (SQS), times eight. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;

export interface FilePayloadStoreOptions {
  /** The folder the payloads live in; made if missing. Nothing is read or written outside it. */
  root: string;
  /** The largest payload put or read, in bytes; `DEFAULT_MAX_PAYLOAD_BYTES` (8 MiB) by default. */
  maxPayloadBytes?: number;
  /** What `prune` measures ages against; the system clock by default (file times are wall time). */
  clock?: Clock;
}

const TEMP_PREFIX = '.partial-';
const SHARD = /^[0-9a-f]{2}$/;
const OBJECT = /^[0-9a-f]{64}$/;

/**
 * A payload store in a local folder: each payload in a file named by its SHA-256, under a folder
 * named by the digest's first two digits (so no folder grows past a few thousand entries). For
 * one machine, or a volume every consumer mounts.
 */
export class FilePayloadStore implements PayloadStore {
  readonly root: string;
  readonly maxPayloadBytes: number;
  readonly #clock: Clock;
  #made: Promise<void> | undefined;

  constructor(options: FilePayloadStoreOptions) {
    if (
      options === null ||
      typeof options !== 'object' ||
      typeof options.root !== 'string' ||
      options.root === ''
    ) {
      throw new QueueError('INVALID_ARGUMENT', 'FilePayloadStore takes { root, maxPayloadBytes?, clock? }', {
        details: { field: 'root' },
      });
    }
    this.root = path.resolve(options.root);
    this.maxPayloadBytes = checkMaxPayloadBytes(options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES);
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Written to a temporary file, flushed to disk, then renamed into place and the folder flushed:
   * a reader never sees half a payload under its name, and a crash leaves at most a temporary
   * file, which `prune` removes. The same bytes put again are written again, so their age starts over.
   */
  async put(bytes: Uint8Array): Promise<PayloadReference> {
    if (!(bytes instanceof Uint8Array)) {
      throw new QueueError('INVALID_ARGUMENT', 'put takes the payload as a Uint8Array', {
        details: { field: 'bytes' },
      });
    }
    if (bytes.byteLength > this.maxPayloadBytes) {
      throw payloadTooLarge(bytes.byteLength, this.maxPayloadBytes, this.#where);
    }
    const reference = contentAddress(bytes);
    const file = this.#pathOf(reference.sha256);
    const folder = path.dirname(file);
    await this.#ensureRoot();
    await this.#io('put', () => mkdir(folder, { recursive: true }));
    const temporary = path.join(folder, `${TEMP_PREFIX}${randomUUID()}`);
    await this.#io('put', async () => {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
      await syncFolder(folder);
    }).catch(async (error: unknown) => {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    });
    return reference;
  }

  /** Reads at most the reference's size (never past the store's bound), then checks the digest. */
  async get(reference: PayloadReference): Promise<Uint8Array> {
    const wanted = checkReference(reference, this.maxPayloadBytes);
    const file = this.#pathOf(wanted.sha256);
    let handle: FileHandle;
    try {
      // O_NOFOLLOW: a link planted under a payload's name does not lead the read out of the root.
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR') || isCode(error, 'ELOOP')) {
        throw payloadMissing(wanted, this.#where);
      }
      throw this.#failure('get', error);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw payloadMissing(wanted, this.#where);
      // One byte more than expected is read, so a file that grew is seen as altered, not cut to fit.
      const buffer = new Uint8Array(Math.min(info.size, wanted.sizeBytes + 1));
      let filled = 0;
      while (filled < buffer.byteLength) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return verifyContent(buffer.subarray(0, filled), wanted, this.#where);
    } catch (error) {
      throw error instanceof QueueError ? error : this.#failure('get', error);
    } finally {
      await handle.close();
    }
  }

  /** Deletes payloads (and temporary files a crash left) last written more than `olderThanSeconds` ago. */
  async prune(options: PruneOptions): Promise<number> {
    const olderThanSeconds = options?.olderThanSeconds;
    if (typeof olderThanSeconds !== 'number' || !Number.isFinite(olderThanSeconds) || olderThanSeconds < 0) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        'prune takes { olderThanSeconds }, a number of seconds, 0 or more',
        {
          details: { field: 'olderThanSeconds' },
        },
      );
    }
    const cutoff = this.#clock.now() - olderThanSeconds * 1000;
    let deleted = 0;
    for (const shard of await this.#list(this.root)) {
      if (!SHARD.test(shard)) continue;
      const folder = path.join(this.root, shard);
      for (const name of await this.#list(folder)) {
        const isObject = OBJECT.test(name) && name.startsWith(shard);
        if (!isObject && !name.startsWith(TEMP_PREFIX)) continue;
        const file = path.join(folder, name);
        const info = await stat(file).catch(() => undefined);
        if (!info?.isFile() || !isOlder(info, cutoff)) continue;
        await this.#io('prune', () => unlink(file)).catch((error: unknown) => {
          // Gone already: another pruner got there first.
          if (!(error instanceof QueueError && error.details.errno === 'ENOENT')) throw error;
        });
        if (isObject) deleted++;
      }
    }
    return deleted;
  }

  get #where(): string {
    return 'the file payload store';
  }

  /** The file for a digest: a name made only of hex digits, checked to be inside the root. */
  #pathOf(sha256: string): string {
    if (!OBJECT.test(sha256)) {
      throw new QueueError('INVALID_ARGUMENT', 'a payload reference needs a lower-case hex SHA-256', {
        details: { field: 'sha256' },
      });
    }
    const file = path.resolve(this.root, sha256.slice(0, 2), sha256);
    if (path.relative(this.root, file) !== path.join(sha256.slice(0, 2), sha256)) {
      throw new QueueError('INVALID_ARGUMENT', 'a payload path must stay inside the store root', {
        details: { field: 'sha256' },
      });
    }
    return file;
  }

  #ensureRoot(): Promise<void> {
    this.#made ??= this.#io('put', async () => {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
    }).catch((error: unknown) => {
      this.#made = undefined;
      throw error;
    });
    return this.#made;
  }

  async #list(folder: string): Promise<string[]> {
    try {
      return await readdir(folder);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return [];
      throw this.#failure('prune', error);
    }
  }

  async #io<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw error instanceof QueueError ? error : this.#failure(operation, error);
    }
  }

  /** A file system failure, named by its errno only: a path could name the application's layout. */
  #failure(operation: string, error: unknown): QueueError {
    const errno = (error as { code?: unknown })?.code;
    const code = typeof errno === 'string' ? errno : 'unknown';
    // Out of space or descriptors, or a busy file, may pass; a permission or a bad root will not.
    const retryable = ['ENOSPC', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN', 'EIO'].includes(code);
    return new QueueError(
      retryable ? 'UNAVAILABLE' : 'INTERNAL',
      `${this.#where} failed to ${operation} (${code})`,
      {
        details: { errno: code, ...(retryable ? { payloadProblem: 'unavailable' } : {}) },
      },
    );
  }
}

/** Makes a rename durable: the folder entry, not just the file, must reach the disk. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isOlder(info: Stats, cutoff: number): boolean {
  return info.mtimeMs < cutoff;
}

function isCode(error: unknown, code: string): boolean {
  return (error as { code?: unknown })?.code === code;
}
