export type ServiceName = 'redis' | 'postgres' | 'sqs';

export const ALL_SERVICES: readonly ServiceName[] = ['redis', 'postgres', 'sqs'];

/**
 * Connection info for the test services. Plain data so vitest can hand it to test workers
 * through `provide`/`inject`. A field is absent when that service was not asked for (or, for
 * SQS, could not be provided: `sqsUnavailable` then says why).
 */
export interface ServiceInfo {
  redisUrl?: string;
  postgresUrl?: string;
  sqsEndpoint?: string;
  sqsUnavailable?: string;
  notes: string[];
}

/** What the vitest global setup provides: it always asks for every service. */
export type AllServiceInfo = ServiceInfo & { redisUrl: string; postgresUrl: string };

/** One service made reachable: where it is, and how to undo what was done for it. */
export interface Ensured {
  url: string;
  /** How it came to be reachable, for summaries: "running", "started redis-server", ... */
  how: string;
  notes: string[];
  stop(): Promise<void>;
}

export type Log = (line: string) => void;
