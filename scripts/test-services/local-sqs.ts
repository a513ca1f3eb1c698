import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { track } from './cleanup';
import { LOCALHOST, onFreePort } from './ports';
import type { Ensured, Log } from './types';

type CreateSqsServer = (options: { port: number; hostname?: string }) => Promise<Server>;

/**
 * Loads the optional npm package local-aws-sqs if the workspace has it. Resolved at run time by
 * name so that neither TypeScript nor the lockfile needs it.
 */
export async function loadLocalAwsSqs(
  fromDir = fileURLToPath(new URL('../..', import.meta.url)),
): Promise<CreateSqsServer | undefined> {
  let resolved: string;
  try {
    resolved = createRequire(path.join(fromDir, 'package.json')).resolve('local-aws-sqs');
  } catch {
    return undefined;
  }
  const mod = (await import(pathToFileURL(resolved).href)) as {
    createSqsServer?: CreateSqsServer;
    default?: { createSqsServer?: CreateSqsServer };
  };
  return mod.createSqsServer ?? mod.default?.createSqsServer;
}

/** Serves SQS from this very process; it dies with the process, so stopNow has nothing to do. */
export async function startLocalAwsSqs(createSqsServer: CreateSqsServer, log: Log): Promise<Ensured> {
  return onFreePort(async (port) => {
    log(`starting local-aws-sqs on ${LOCALHOST}:${port}`);
    const server = await createSqsServer({ port, hostname: LOCALHOST });
    const stop = track({
      stop: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
      stopNow: () => {},
    });
    const url = `http://${LOCALHOST}:${port}`;
    return {
      url,
      how: 'started local-aws-sqs',
      notes: [`started local-aws-sqs on ${url}`],
      stop,
    };
  });
}
