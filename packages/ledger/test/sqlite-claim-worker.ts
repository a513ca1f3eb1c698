import { parentPort, workerData } from 'node:worker_threads';
import { payloadDigest } from '@queueport/core';
import { openSqliteLedger } from '@queueport/ledger/sqlite';

/**
 * One contender in the SQLite claim race. It opens its own connection through the package's
 * TypeScript sources (run with `--import tsx --conditions=@queueport/source`), then for each round
 * waits at a barrier until every worker is ready and claims the round's id at the round's time.
 */
export interface ClaimRound {
  eventId: string;
  /** The time every contender's clock shows for this round. */
  now: number;
}

export interface WorkerInput {
  filename: string;
  owner: string;
  rounds: readonly ClaimRound[];
  /** Slot i counts the workers that reached round i (the last slot: opened). */
  barrier: Int32Array;
  parties: number;
}

export interface WorkerReport {
  owner: string;
  results: string[];
  error?: string;
}

/**
 * A barrier that releases everyone as close together as threads allow: arrivals spin (yielding
 * through a short Atomics.wait now and then), so no one pays a wake-up from a long sleep, which
 * would otherwise stagger the contenders by more than a claim takes.
 */
function arriveAndWait(barrier: Int32Array, slot: number, parties: number): void {
  Atomics.add(barrier, slot, 1);
  for (let spins = 0; Atomics.load(barrier, slot) < parties; spins++) {
    if (spins % 1000 === 999) Atomics.wait(barrier, slot, Atomics.load(barrier, slot), 1);
  }
}

async function main(input: WorkerInput): Promise<WorkerReport> {
  let now = 0;
  const clock = { now: () => now, sleep: async () => undefined };
  const openedSlot = input.rounds.length;
  arriveAndWait(input.barrier, openedSlot, input.parties);
  const ledger = await openSqliteLedger({ filename: input.filename, clock });
  const results: string[] = [];
  try {
    for (const [index, round] of input.rounds.entries()) {
      now = round.now;
      arriveAndWait(input.barrier, index, input.parties);
      const result = await ledger.claim({
        eventId: round.eventId,
        payloadSha256: payloadDigest({ id: round.eventId }),
        owner: input.owner,
        leaseSeconds: 60,
      });
      results.push(result.status);
    }
  } finally {
    await ledger.close();
  }
  return { owner: input.owner, results };
}

main(workerData as WorkerInput).then(
  (report) => parentPort!.postMessage(report),
  (error: unknown) =>
    parentPort!.postMessage({
      owner: (workerData as WorkerInput).owner,
      results: [],
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    } satisfies WorkerReport),
);
