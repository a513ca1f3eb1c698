import { homedir } from 'node:os';
import path from 'node:path';
import { findExecutable } from './executables';
import { LOCALHOST } from './ports';
import { sqsAnswersListQueues } from './sqs-probe';
import { startServer } from './start-server';
import type { Ensured, Log } from './types';

/** moto_server usually comes from pip, often behind pyenv shims that a non-login PATH lacks. */
export function findMotoServer(): string | undefined {
  return findExecutable('moto_server', [
    path.join(homedir(), '.pyenv', 'shims'),
    path.join(homedir(), '.local', 'bin'),
  ]);
}

/** Starts a private moto_server: its state is per process, so no other run shares our queues. */
export function startMoto(binary: string, log: Log): Promise<Ensured> {
  return startServer({
    name: 'moto_server',
    binary,
    url: (port) => `http://${LOCALHOST}:${port}`,
    args: (port) => ['-H', LOCALHOST, '-p', String(port)],
    // Unbuffered, so a failure's error message can show what Python printed.
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
    ready: (url) => sqsAnswersListQueues(url, 1000),
    timeoutMs: 30_000,
    intervalMs: 200,
    log,
  });
}
