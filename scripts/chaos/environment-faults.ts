/**
 * Faults of the world around the workers, beside their kills: the broker and the database
 * crashed and started again, the Infrai simulator dropping connections and answering bursts of
 * 503 and 429, the receiver down for a while. Each configuration gets the ones that touch its
 * parts; the controller injects them in turn between kills. SQS has none: moto keeps its queues
 * in memory, so a restart of it is a new, empty SQS and says nothing about a real one.
 */
import type { InfraiFault } from '@queueport/infrai/testing';

/** A server of the campaign's own that it may crash: what it acknowledged survives (see run.ts). */
export interface Restartable {
  crash(): Promise<void>;
  start(): Promise<void>;
}

export interface FaultTargets {
  adapter: 'bullmq' | 'sqs' | 'infrai';
  ledger: 'sqlite' | 'postgres';
  redis?: Restartable;
  postgres?: Restartable;
  /** Arms one of the Infrai simulator's faults (a status burst, a dropped connection). */
  infrai?: (fault: InfraiFault) => void;
  /** SIGKILLs the receiver, and starts another on its port and its record. */
  receiver: Restartable;
}

export interface EnvironmentFault {
  /** What it does, for the report. */
  readonly what: string;
  /** Resolves once the part is back (or, for armed faults, once armed). */
  inject(): Promise<void>;
}

/** Long enough for every worker's calls to fail and its clients to start reconnecting. */
const OUTAGE_MS = { redis: 1000, postgres: 1000, receiver: 1500 };
/** Requests an armed simulator fault answers before it is used up. */
const BURST = 10;
const DROPS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function outage(part: Restartable, downMs: number): () => Promise<void> {
  return async () => {
    await part.crash();
    await sleep(downMs);
    await part.start();
  };
}

export function environmentFaults(targets: FaultTargets): EnvironmentFault[] {
  const faults: EnvironmentFault[] = [
    {
      what: `the receiver SIGKILLed and down for ${OUTAGE_MS.receiver} ms`,
      inject: outage(targets.receiver, OUTAGE_MS.receiver),
    },
  ];
  if (targets.adapter === 'bullmq' && targets.redis) {
    faults.push({
      what: `Redis SIGKILLed and restarted after ${OUTAGE_MS.redis} ms (AOF, fsync always)`,
      inject: outage(targets.redis, OUTAGE_MS.redis),
    });
  }
  if (targets.ledger === 'postgres' && targets.postgres) {
    faults.push({
      what: `PostgreSQL stopped immediately (no checkpoint) and restarted after ${OUTAGE_MS.postgres} ms`,
      inject: outage(targets.postgres, OUTAGE_MS.postgres),
    });
  }
  const arm = targets.infrai;
  if (targets.adapter === 'infrai' && arm) {
    // Armed together, they meet the next requests in this order, whoever sends them.
    const burst: InfraiFault[] = [
      { kind: 'status', status: 503, count: BURST },
      { kind: 'status', status: 429, retryAfterSeconds: 1, count: BURST },
      { kind: 'drop-before', count: DROPS },
      { kind: 'drop-after', count: DROPS },
    ];
    faults.push({
      what: `the Infrai simulator answering ${BURST} requests 503, then ${BURST} 429 (Retry-After 1 s), then dropping ${DROPS} connections before acting and ${DROPS} after`,
      inject: async () => {
        for (const fault of burst) arm(fault);
      },
    });
  }
  return faults;
}
