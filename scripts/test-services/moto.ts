import { homedir } from 'node:os';
import path from 'node:path';
import { startFailure, startProcess } from './child';
import { track } from './cleanup';
import { findExecutable } from './executables';
import { LOCALHOST, onFreePort, waitUntil } from './ports';
import { sqsAnswersListQueues } from './sqs-probe';
import type { Ensured, Log } from './types';

/** moto_server usually comes from pip, often behind pyenv shims that a non-login PATH lacks. */
export function findMotoServer(): string | undefined {
  return findExecutable('moto_server', [
    path.join(homedir(), '.pyenv', 'shims'),
    path.join(homedir(), '.local', 'bin'),
  ]);
}

/** Starts a private moto_server: its state is per process, so no other run shares our queues. */
export async function startMoto(binary: string, log: Log): Promise<Ensured> {
  return onFreePort(async (port) => {
    const url = `http://${LOCALHOST}:${port}`;
    log(`starting moto_server on ${LOCALHOST}:${port}`);
    // Unbuffered, so a failure's error message can show what Python printed.
    const env = { ...process.env, PYTHONUNBUFFERED: '1' };
    const proc = startProcess('moto_server', binary, ['-H', LOCALHOST, '-p', String(port)], { env });
    const stop = track(proc);
    try {
      await waitUntil('moto_server did not come up', () => sqsAnswersListQueues(url, 1000), {
        timeoutMs: 30_000,
        intervalMs: 200,
        giveUp: proc.exitReason,
      });
    } catch (error) {
      await stop();
      throw startFailure(proc, error);
    }
    return {
      url,
      how: 'started moto_server',
      notes: [`started moto_server on ${url}`],
      stop,
    };
  });
}
