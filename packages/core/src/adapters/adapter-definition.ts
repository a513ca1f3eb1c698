import type { Clock } from '../clock';
import type { Driver } from '../driver';
import { registerSecretPatterns } from '../errors';

/** What opening a driver or an admin may take besides the URL. */
export interface OpenContext {
  /** For adapters that declare `virtualClock`: the clock their leases and delays live by. */
  clock?: Clock;
  /** Where secrets are read from (never from the URL's query); process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface QueueStats {
  /** Messages held: waiting, delayed and leased; null where the provider does not say. */
  depth: number | null;
  /** Age of the oldest message that could be received now, in seconds; null where unknown or empty. */
  oldestReadyAgeSeconds: number | null;
  /** Messages in the dead letters; null where the provider does not say. */
  deadLetters: number | null;
}

export interface DeadLetterRecord {
  messageId: string;
  eventId: string | undefined;
  body: string;
  attributes: Readonly<Record<string, string>>;
  receiveCount: number;
  reason: string | undefined;
  /** Epoch ms when it was moved, where known. */
  at: number | undefined;
}

export interface CreateQueueRequest {
  /** A name the provider accepts; scratch queues for drills get unique ones. */
  name: string;
  /** The provider moves a message to the dead letters after this many receives (where it can). */
  redriveAfterReceives?: number;
  /** Provider-specific settings, as the adapter's README lists them (e.g. `fifo: true`). */
  settings?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * A provider's administration, for drills, the CLI and the suite: scratch queues, depth, dead
 * letters. Opened from a provider URL; queues are named by their own URLs.
 */
export interface QueueAdmin {
  /** Creates a queue and returns the URL that opens it. */
  createQueue(request: CreateQueueRequest): Promise<string>;
  deleteQueue(url: string): Promise<void>;
  stats(url: string): Promise<QueueStats>;
  /** Oldest first. */
  listDeadLetters?(url: string, options: { limit: number }): Promise<DeadLetterRecord[]>;
  /** Moves up to `limit` dead letters back to the queue; returns how many moved. */
  redriveDeadLetters?(url: string, options: { limit: number }): Promise<number>;
  /** Deletes every message the queue holds (not its dead letters). */
  purge?(url: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * How an adapter's URLs read, connecting to nothing: what the CLI and the suite need to check a
 * configuration, name its secrets and make scratch queues, without knowing the provider.
 * The kit's `defineUrlGrammar` builds one; an adapter may write its own.
 */
export interface AdapterUrls {
  /** Throws the adapter's QueueError where opening the URL would refuse its form (not its reachability). */
  check(url: URL): void;
  /** The environment variables opening the URL reads, defaults included, in the order read. */
  envNames(url: URL): string[];
  /** The provider's URL without its queue (what `admin` opens); the options stay. */
  providerUrl(queueUrl: URL): string;
  /** The URL of the queue `queueName` at the provider `providerUrl`, with its options. */
  queueUrl(providerUrl: URL, queueName: string): string;
}

/** Where a provider's server listens: what the drill probes when an open goes unanswered. */
export interface AdapterEndpoint {
  host: string;
  port: number;
}

/** One check a provider runs before a drill trusts it (Infrai: its discovery schemas match). */
export interface PreflightCheck {
  /** A short stable name, for reports: `schema-current`. */
  name: string;
  ok: boolean;
  /** What was found, for people; never a secret. */
  detail: string;
  /** What to do where it failed. */
  fix?: string;
}

export interface PreflightContext extends OpenContext {
  /** Aborted when the drill is stopped. */
  signal?: AbortSignal;
  /** The bound of each check's calls, in milliseconds (the drill's step bound). */
  timeoutMs?: number;
}

/**
 * One provider, as a package exports it: its URL scheme, how to open a driver from a URL, and
 * optionally its admin surface. In the spirit of Go CDK's URL openers, so the CLI and the suite
 * open any provider with no code of their own.
 */
export interface AdapterDefinition {
  /** The URL scheme without the colon: `memory`, `sqs`, `bullmq`, `infrai`. */
  scheme: string;
  /** The package that exports it, for messages. */
  packageName: string;
  /** Whether `open` honours `context.clock`, so the suite can run it on virtual time. */
  virtualClock: boolean;
  /**
   * Packages a user installs beside this one (its peers), for the install line when one is
   * missing: `['bullmq', 'ioredis']`. Empty or absent: none.
   */
  peers?: readonly string[];
  /**
   * How its URLs read. Absent (an adapter written before the kit): the queue is the URL's path,
   * every `*Env` option names a variable, and nothing is checked before opening.
   */
  urls?: AdapterUrls;
  /**
   * Patterns of the credentials this provider issues (Infrai's `ifr_` keys), masked wherever
   * queueport redacts. Global flags are not needed; each is matched anywhere in a text.
   */
  secretPatterns?: readonly RegExp[];
  /**
   * Checks for the drill to run before trusting the provider; each one a row of its report. It
   * runs whether or not the provider opened (a drifted schema is often why it did not), so it
   * must not need an open queue. A check that cannot run is a failed check, not a throw.
   */
  preflight?(url: URL, context: PreflightContext): Promise<PreflightCheck[]>;
  /**
   * The server a URL's provider listens on, for a TCP probe that says why nothing answered
   * (refused, unresolvable); undefined where the URL names none (a cloud SDK resolves it).
   */
  endpoint?(url: URL): AdapterEndpoint | undefined;
  open(url: URL, context: OpenContext): Driver | Promise<Driver>;
  admin?(url: URL, context: OpenContext): QueueAdmin | Promise<QueueAdmin>;
}

/**
 * The definition as given; its `secretPatterns` are registered with `redactSecrets` here, so a
 * provider's credentials are masked in every package's errors once its adapter is loaded.
 */
export function defineAdapter(definition: AdapterDefinition): AdapterDefinition {
  if (definition.secretPatterns) registerSecretPatterns(definition.secretPatterns);
  return definition;
}
