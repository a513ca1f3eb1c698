import { QueueError } from '../errors';

/** Nesting below this many levels is refused: canonical JSON recurses, and no event needs it. */
export const MAX_JSON_DEPTH = 64;
/** A refusal names at most this many problems, so a payload of a million NaNs stays one short line. */
const MAX_PROBLEMS = 20;

export interface JsonReaderOptions {
  /**
   * Reading stops with PAYLOAD_TOO_LARGE as soon as the serialised size is known to pass this
   * many UTF-8 bytes. It also bounds the work on a graph whose shared parts expand when
   * serialised: every value read adds at least one byte.
   */
  maxBytes: number;
  /**
   * Copy what is read into fresh plain objects and arrays, each property read exactly once, so a
   * getter or a proxy cannot show the checks one value and the encoder another. Off for values
   * that are plain data already (the output of JSON.parse).
   */
  copy: boolean;
}

class SizeLimitExceeded extends Error {}
class TooManyProblems extends Error {}

/** Node 20 has String.prototype.isWellFormed; the ES2023 lib this package compiles with does not. */
export const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Reads values that must be plain JSON data in one pass, linear in their serialised size. It
 * refuses what canonical JSON cannot carry faithfully (non-finite numbers, undefined, functions,
 * class instances, holes in arrays, lone surrogates, cycles, nesting past 64 levels) and counts
 * the size as it goes. Several values (the fields of one envelope) can share one size budget.
 */
export class JsonReader {
  readonly problems: string[] = [];
  /** A lower bound of the canonical JSON size of everything read so far, in UTF-8 bytes. */
  size = 0;
  readonly #options: JsonReaderOptions;
  /** Objects on the path from the root to the value being read: meeting one again is a cycle. */
  readonly #ancestors = new Set<object>();
  #root = '';
  /** Keys and indexes below the root; a path is only built into a string for a problem. */
  #segments: Array<string | number> = [];

  constructor(options: JsonReaderOptions) {
    this.#options = options;
  }

  /**
   * Reads `value`, named `root` in problems (`payload`, giving `payload.items[3]`). Returns the
   * snapshot (or the value itself without `copy`). Throws only what `settle` turns into errors.
   */
  read(root: string, value: unknown): unknown {
    this.#root = root;
    this.#segments = [];
    return this.#read(value, 0);
  }

  /** Where the reader is: the path of the value being read. */
  path(): string {
    let path = this.#root;
    for (const segment of this.#segments)
      path += typeof segment === 'number' ? `[${segment}]` : pathKey(segment);
    return path;
  }

  #read(value: unknown, depth: number): unknown {
    if (depth > MAX_JSON_DEPTH) {
      this.#problem(`nests deeper than ${MAX_JSON_DEPTH} levels`);
      return value;
    }
    if (value === null) {
      this.#count(4);
      return value;
    }
    switch (typeof value) {
      case 'string':
        if (!isWellFormed(value)) this.#problem('has a lone surrogate (is not well-formed UTF-16)');
        this.#count(Buffer.byteLength(value, 'utf8') + 2);
        return value;
      case 'boolean':
        this.#count(value ? 4 : 5);
        return value;
      case 'number':
        // At least one character; writing the number out to count it exactly costs more than the rest.
        if (Number.isFinite(value)) this.#count(1);
        else this.#problem('is not a finite number');
        return value;
      case 'object':
        return this.#readObject(value, depth);
      default:
        this.#problem(`is not JSON (${typeof value})`);
        return value;
    }
  }

  #readObject(value: object, depth: number): unknown {
    if (this.#ancestors.has(value)) {
      this.#problem('refers back to a value that contains it (a cycle)');
      return value;
    }
    const isArray = Array.isArray(value);
    if (!isArray) {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        this.#problem('is not a plain JSON object');
        return value;
      }
    }
    this.#ancestors.add(value);
    const result = isArray
      ? this.#readArray(value as unknown[], depth)
      : this.#readEntries(value as Record<string, unknown>, depth);
    this.#ancestors.delete(value);
    return result;
  }

  #readArray(array: readonly unknown[], depth: number): unknown {
    const length = array.length;
    this.#count(2 + Math.max(0, length - 1));
    const copy: unknown[] | undefined = this.#options.copy ? [] : undefined;
    for (let index = 0; index < length; index++) {
      this.#segments.push(index);
      if (Object.hasOwn(array, index)) {
        const item = this.#read(array[index], depth + 1);
        copy?.push(item);
      } else {
        // Canonical JSON skips holes: `[, 1]` would go out as "[,1]", which no consumer can parse.
        this.#problem('is a hole in a sparse array (use null)');
      }
      this.#segments.pop();
    }
    return copy ?? array;
  }

  #readEntries(object: Record<string, unknown>, depth: number): unknown {
    const keys = Object.keys(object);
    this.#count(2 + Math.max(0, keys.length - 1));
    const copy: Record<string, unknown> | undefined = this.#options.copy ? {} : undefined;
    for (const key of keys) {
      this.#segments.push(key);
      if (!isWellFormed(key)) this.#problem('is a key with a lone surrogate (is not well-formed UTF-16)');
      this.#count(Buffer.byteLength(key, 'utf8') + 3);
      const item = this.#read(object[key], depth + 1);
      if (copy) setOwn(copy, key, item);
      this.#segments.pop();
    }
    return copy ?? object;
  }

  #count(bytes: number): void {
    this.size += bytes;
    if (this.size > this.#options.maxBytes) throw new SizeLimitExceeded();
  }

  #problem(what: string): void {
    this.problems.push(`${this.path()} ${what}`);
    if (this.problems.length >= MAX_PROBLEMS) throw new TooManyProblems();
  }

  /**
   * Runs `read` calls and turns what stopped them into a QueueError: PAYLOAD_TOO_LARGE once the
   * size passed the limit, INVALID_ENVELOPE naming the problems, or naming where a getter or
   * proxy of the caller's threw.
   */
  settle<T>(run: () => T, eventId: () => unknown, subject = 'message'): T {
    const id = () => {
      const value = eventId();
      return typeof value === 'string' && isWellFormed(value) ? value : undefined;
    };
    let result: T;
    try {
      result = run();
    } catch (error) {
      if (error instanceof TooManyProblems) {
        throw invalidEnvelope([...this.problems, '(reading stopped here)'], id());
      }
      if (error instanceof SizeLimitExceeded) {
        const eventIdValue = id();
        const { maxBytes } = this.#options;
        throw new QueueError(
          'PAYLOAD_TOO_LARGE',
          `${subject}${eventIdValue === undefined ? '' : ` for event ${eventIdValue}`} is at least ${this.size} bytes once encoded; the limit is ${maxBytes}`,
          {
            details: {
              ...(eventIdValue === undefined ? {} : { event_id: eventIdValue }),
              sizeBytes: this.size,
              atLeast: true,
              maxBodyBytes: maxBytes,
            },
          },
        );
      }
      if (error instanceof QueueError) throw error;
      // A getter or a proxy trap of the caller's threw: the value cannot be read, so it is not JSON.
      const reason = error instanceof Error ? error.message : String(error);
      throw invalidEnvelope([`${this.path()} could not be read (${reason})`], id(), error);
    }
    if (this.problems.length > 0) throw invalidEnvelope(this.problems, id());
    return result;
  }
}

/** Characters that would garble a message: control characters, and what separates a path. */
function isPlainKey(key: string): boolean {
  if (key.length === 0 || key.length > 64 || !isWellFormed(key)) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || '.[]"'.includes(key[i]!)) return false;
  }
  return true;
}

/** `.key` as written, or `["key"]` escaped (and cut) when it would garble a message. */
function pathKey(key: string): string {
  if (isPlainKey(key)) return `.${key}`;
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return `[${JSON.stringify(shown)}]`;
}

export function invalidEnvelope(problems: string[], eventId?: unknown, cause?: unknown): QueueError {
  return new QueueError('INVALID_ENVELOPE', `invalid envelope: ${problems.join('; ')}`, {
    details: { problems, ...(typeof eventId === 'string' ? { event_id: eventId } : {}) },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Adds `key` as an own data property: assigning "__proto__" would set the prototype instead. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
