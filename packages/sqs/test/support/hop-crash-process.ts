import { type FixtureProcess, spawnFixture } from './child-process';
import type { SentHop } from './driver-taps';

/** A consumer process (fixtures/crash-between-hops.ts) that stalls once it has re-sent a hop. */
export interface HopCrasher {
  /** Resolves once it is receiving. */
  ready(timeoutMs: number): Promise<void>;
  /** The hops it re-sent before stalling; rejects when it prints anything else first. */
  resent(timeoutMs: number): Promise<SentHop[]>;
  /** SIGKILL: the hop it received is never acked. */
  kill(): Promise<void>;
}

type Line = { ready: true } | { resent: SentHop[] } | { delivered: unknown };

export function spawnHopCrasher(queueUrl: string, leaseSeconds: number): HopCrasher {
  const child: FixtureProcess = spawnFixture('crash-between-hops.ts', [queueUrl, String(leaseSeconds)]);
  return {
    async ready(timeoutMs) {
      const line = await child.nextLine<Line>('it was ready', timeoutMs);
      if (!('ready' in line)) throw new Error(`crash-between-hops.ts said ${JSON.stringify(line)} first`);
    },
    async resent(timeoutMs) {
      const line = await child.nextLine<Line>('it re-sent a hop', timeoutMs);
      if (!('resent' in line)) throw new Error(`crash-between-hops.ts said ${JSON.stringify(line)} first`);
      return line.resent;
    },
    kill: () => child.kill(),
  };
}
