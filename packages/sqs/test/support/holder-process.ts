import { type FixtureProcess, spawnFixture } from './child-process';

export interface Held {
  eventId: string;
  receiveCount: number;
  /** Epoch ms: the end of the lease the holder was granted (SQS's visibility timeout ends no sooner). */
  leaseExpiresAt: number;
}

/** A worker process (fixtures/hold-leases.ts) that receives `count` messages and hangs on them. */
export interface Holder {
  /** What it holds, once it holds all of them; rejects when it exits first or says nothing in time. */
  held(timeoutMs: number): Promise<Held[]>;
  /** SIGKILL, so nothing is acked or released on the way out; resolves once it is gone. */
  kill(): Promise<void>;
}

export function spawnHolder(queueUrl: string, leaseSeconds: number, count: number): Holder {
  const child: FixtureProcess = spawnFixture('hold-leases.ts', [
    queueUrl,
    String(leaseSeconds),
    String(count),
  ]);
  return {
    async held(timeoutMs) {
      return (await child.nextLine<{ held: Held[] }>('it held the messages', timeoutMs)).held;
    },
    kill: () => child.kill(),
  };
}
