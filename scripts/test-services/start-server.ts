import { startFailure, startProcess } from './child';
import { track } from './cleanup';
import { LOCALHOST, onFreePort, waitUntil } from './ports';
import type { Ensured, Log } from './types';

export interface ServerSpec {
  /** Program name, for logs and error messages. */
  name: string;
  binary: string;
  /** The server's URL on the free port chosen for it. */
  url(port: number): string;
  args(port: number): string[];
  /** The server's environment, or how it reads on the chosen port (RabbitMQ takes its port there). */
  env?: NodeJS.ProcessEnv | ((port: number) => NodeJS.ProcessEnv);
  /** True once the server really answers (a protocol-level probe, not an open port). */
  ready(url: string): Promise<boolean>;
  timeoutMs: number;
  intervalMs?: number;
  log: Log;
}

/**
 * Starts a server on a free port and waits until it answers. It is stopped on failure, and on
 * success registered so it is stopped when the run ends; the error shows what it printed.
 */
export function startServer(spec: ServerSpec): Promise<Ensured> {
  return onFreePort(async (port) => {
    const url = spec.url(port);
    spec.log(`starting ${spec.name} on ${LOCALHOST}:${port}`);
    const env = typeof spec.env === 'function' ? spec.env(port) : spec.env;
    const proc = startProcess(spec.name, spec.binary, spec.args(port), env ? { env } : {});
    const stop = track(proc);
    try {
      await waitUntil(`${spec.name} did not come up`, () => spec.ready(url), {
        timeoutMs: spec.timeoutMs,
        ...(spec.intervalMs === undefined ? {} : { intervalMs: spec.intervalMs }),
        giveUp: proc.exitReason,
      });
    } catch (error) {
      await stop();
      throw startFailure(proc, error);
    }
    return { url, how: `started ${spec.name}`, notes: [`started ${spec.name} on ${url}`], stop };
  });
}
