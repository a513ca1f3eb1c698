import type { AdapterDefinition } from '@queueport/core/driver';
import type { ReferenceReceiver } from '@queueport/webhook/reference-receiver';

/**
 * `queueport.config.json` (or `.mjs` / `.ts` exporting the same as default). Providers are
 * named by URL and opened through their adapter definitions; secrets are named by environment
 * variable, never written here.
 */
export interface QueueportConfig {
  /**
   * Adapter packages besides the built-in ones, by package name or by path (relative to the
   * configuration file): each module's exported AdapterDefinitions serve their schemes.
   */
  adapters?: string[];
  /** By name: `{ "primary": { "url": "<scheme>://<where>/<queue>" } }`. */
  providers: Record<string, ProviderConfig>;
  ledger?: LedgerConfig;
  receiver?: ReceiverConfig;
  /**
   * A module (path relative to the configuration file) whose default export loads an event's
   * payload by id, for `reconcile`: the ledger never stores payloads.
   */
  payloadLoader?: string;
}

export interface ProviderConfig {
  url: string;
}

export type LedgerConfig =
  /** A SQLite file, relative to the configuration file. */
  | { sqlite: string }
  /** The environment variable holding a postgres:// URL (it may carry a password). */
  | { postgresUrlEnv: string };

export interface ReceiverConfig {
  /** Where the drill's synthetic event is delivered. */
  url: string;
  /** The environment variable holding the Standard Webhooks signing secret, if it checks signatures. */
  secretEnv?: string;
  /** Allow a plain-HTTP or loopback receiver (local drills only). */
  allowInsecure?: boolean;
}

/** What a command runs against once the configuration is loaded (or the embedded defaults started). */
export interface LoadedConfig {
  config: QueueportConfig;
  /** The file it came from; undefined for the embedded defaults. */
  file: string | undefined;
  /**
   * Schemes served by adapters other than the built-in ones (the configuration's `adapters`, a
   * program's own): the schemes of `adapters`.
   */
  ownSchemes?: readonly string[];
  /**
   * The adapters providers are opened with besides the built-in ones: those the configuration's
   * `adapters` names, loaded, and a program's own. Their URL rules check the URLs and name the
   * variables they read, as the built-in ones' do.
   */
  adapters?: readonly AdapterDefinition[];
  /**
   * Variables the embedded defaults generated (the simulator's API key, the receiver's signing
   * secret), layered over `io.env` wherever a configured `*Env` is read: use `configEnv(io,
   * loaded)`. Absent for a file, whose secrets all come from the environment.
   */
  env?: Readonly<Record<string, string>>;
  /** The loopback receiver the embedded defaults started, so a drill can count its effects. */
  referenceReceiver?: ReferenceReceiver;
  /** Stops what the embedded defaults started (simulator, receiver, temp folder). */
  close(): Promise<void>;
}
