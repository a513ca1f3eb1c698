import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  checkReference,
  contentAddress,
  DEFAULT_MAX_PAYLOAD_BYTES,
  type PayloadReference,
  type PayloadStore,
  type PruneOptions,
  payloadAltered,
  payloadMissing,
  payloadTooLarge,
  QueueError,
  verifyContent,
} from '@queueport/core';
import { classifyS3Error } from './classify-s3-error';
import { readBounded } from './read-bounded';

export interface S3PayloadStoreOptions {
  /** A configured client (region, credentials, endpoint); the store never closes it. */
  client: S3Client;
  bucket: string;
  /** Key prefix the payloads live under, `queueport/payloads/` by default; prune lists only this. */
  prefix?: string;
  /** The largest payload put or read, in bytes; `DEFAULT_MAX_PAYLOAD_BYTES` (8 MiB) by default. */
  maxPayloadBytes?: number;
  /** The bound on each request, body included, in milliseconds; 30 s by default. */
  requestTimeoutMs?: number;
  /** What `prune` measures ages against; `Date.now` by default (S3's LastModified is wall time). */
  now?: () => number;
}

export const DEFAULT_PREFIX = 'queueport/payloads/';
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const OBJECT_NAME = /^[0-9a-f]{64}$/;
/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1000;

/**
 * A payload store in an S3 bucket, or anything that speaks S3 (MinIO, R2, moto): each payload
 * under `<prefix><sha256>`, put with S3's own SHA-256 checksum so a body damaged on the way is
 * refused by S3 itself, and read back with its length checked before and its digest after.
 */
export class S3PayloadStore implements PayloadStore {
  readonly bucket: string;
  readonly prefix: string;
  readonly maxPayloadBytes: number;
  readonly requestTimeoutMs: number;
  readonly #client: S3Client;
  readonly #now: () => number;

  constructor(options: S3PayloadStoreOptions) {
    if (options === null || typeof options !== 'object') throw invalidOption('options');
    const { client, bucket, prefix = DEFAULT_PREFIX } = options;
    if (client === null || typeof client !== 'object' || typeof (client as S3Client).send !== 'function') {
      throw invalidOption('client', 'must be an S3Client');
    }
    if (typeof bucket !== 'string' || bucket === '') throw invalidOption('bucket', 'must name a bucket');
    if (typeof prefix !== 'string' || prefix.length > 512)
      throw invalidOption('prefix', 'must be a string of at most 512 characters');
    this.#client = client;
    this.bucket = bucket;
    this.prefix = prefix;
    this.maxPayloadBytes = wholeNumber(
      options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
      'maxPayloadBytes',
      1,
    );
    this.requestTimeoutMs = wholeNumber(
      options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      'requestTimeoutMs',
      1,
    );
    this.#now = options.now ?? Date.now;
  }

  async put(bytes: Uint8Array): Promise<PayloadReference> {
    if (!(bytes instanceof Uint8Array)) throw invalidOption('bytes', 'must be a Uint8Array');
    if (bytes.byteLength > this.maxPayloadBytes) {
      throw payloadTooLarge(bytes.byteLength, this.maxPayloadBytes, this.#where);
    }
    const reference = contentAddress(bytes);
    await this.#send('put', (abortSignal) =>
      this.#client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.#keyOf(reference.sha256),
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: 'application/json',
          ChecksumSHA256: Buffer.from(reference.sha256, 'hex').toString('base64'),
        }),
        { abortSignal },
      ),
    );
    return reference;
  }

  async get(reference: PayloadReference): Promise<Uint8Array> {
    const wanted = checkReference(reference, this.maxPayloadBytes);
    return this.#send(
      'get',
      async (abortSignal) => {
        const answer = await this.#client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.#keyOf(wanted.sha256) }),
          { abortSignal },
        );
        // A declared length that is not the reference's is refused before a byte is read.
        if (answer.ContentLength !== undefined && answer.ContentLength !== wanted.sizeBytes) {
          destroyBody(answer.Body);
          throw payloadAltered(wanted, this.#where);
        }
        if (answer.Body === undefined) throw payloadAltered(wanted, this.#where);
        // One byte past the reference is read, so a body longer than declared is seen, not cut to fit.
        const bytes = await readBounded(answer.Body, wanted.sizeBytes + 1);
        return verifyContent(bytes, wanted, this.#where);
      },
      wanted,
    );
  }

  /** Deletes the payloads under the prefix last put more than `olderThanSeconds` ago. */
  async prune(options: PruneOptions): Promise<number> {
    const olderThanSeconds = options?.olderThanSeconds;
    if (typeof olderThanSeconds !== 'number' || !Number.isFinite(olderThanSeconds) || olderThanSeconds < 0) {
      throw invalidOption('olderThanSeconds', 'must be a number of seconds, 0 or more');
    }
    const cutoff = this.#now() - olderThanSeconds * 1000;
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await this.#send('prune', (abortSignal) =>
        this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.prefix,
            MaxKeys: DELETE_BATCH,
            ...(token ? { ContinuationToken: token } : {}),
          }),
          { abortSignal },
        ),
      );
      const old = (page.Contents ?? []).filter(
        (object) =>
          typeof object.Key === 'string' &&
          OBJECT_NAME.test(object.Key.slice(this.prefix.length)) &&
          object.LastModified instanceof Date &&
          object.LastModified.getTime() < cutoff,
      );
      if (old.length > 0) {
        const answer = await this.#send('prune', (abortSignal) =>
          this.#client.send(
            new DeleteObjectsCommand({
              Bucket: this.bucket,
              Delete: { Objects: old.map((object) => ({ Key: object.Key! })), Quiet: true },
            }),
            { abortSignal },
          ),
        );
        const failed = answer.Errors?.length ?? 0;
        if (failed > 0) {
          throw new QueueError(
            'UNAVAILABLE',
            `${this.#where} could not delete ${failed} of ${old.length} payloads`,
            {
              details: { failed, deleted: deleted + old.length - failed },
            },
          );
        }
        deleted += old.length;
      }
      token =
        page.IsTruncated === true && typeof page.NextContinuationToken === 'string'
          ? page.NextContinuationToken
          : undefined;
    } while (token !== undefined);
    return deleted;
  }

  get #where(): string {
    return `S3 bucket ${this.bucket}`;
  }

  #keyOf(sha256: string): string {
    if (!OBJECT_NAME.test(sha256)) throw invalidOption('sha256', 'must be a lower-case hex SHA-256');
    return `${this.prefix}${sha256}`;
  }

  /** One request under the store's deadline, its failure mapped onto queueport's codes. */
  async #send<T>(
    operation: string,
    run: (signal: AbortSignal) => Promise<T>,
    reference?: PayloadReference,
  ): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.requestTimeoutMs);
    try {
      return await run(controller.signal);
    } catch (error) {
      if (error instanceof QueueError) throw error;
      if (controller.signal.aborted) {
        throw new QueueError(
          'UNAVAILABLE',
          `${this.#where} did not answer ${operation} within ${this.requestTimeoutMs} ms`,
          {
            details: { timedOut: true, payloadProblem: 'unavailable' },
          },
        );
      }
      const classified = classifyS3Error(error, operation, this.#where);
      if (classified.code === 'NOT_FOUND' && reference) throw payloadMissing(reference, this.#where);
      throw classified;
    } finally {
      clearTimeout(timer);
    }
  }
}

function destroyBody(body: unknown): void {
  (body as { destroy?: () => void } | undefined)?.destroy?.();
}

function invalidOption(field: string, rule = 'is required'): QueueError {
  return new QueueError('INVALID_ARGUMENT', `S3PayloadStore: ${field} ${rule}`, { details: { field } });
}

function wholeNumber(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw invalidOption(field, `must be a whole number, ${min} or more`);
  }
  return value;
}
