import { parseArgs } from 'node:util';
import { createInfraiAdapter } from '../infrai-adapter';
import { DEFAULT_SIMULATOR_API_KEY, type InfraiSimulator, startInfraiSimulator } from './simulator';

export const SIMULATOR_USAGE = `usage: infrai-simulator [--port 4010] [--host 127.0.0.1] [--api-key KEY] [--queue NAME]... [--json]

Runs the Infrai simulator until SIGINT or SIGTERM, for a drill or a demo against a configuration
file. It prints its base URL, the API key it takes and an infrai:// URL per queue made with --queue.

  --port      the port to listen on (default 4010; 0 picks a free one)
  --host      the address to listen on (default 127.0.0.1)
  --api-key   the key it takes (default ${DEFAULT_SIMULATOR_API_KEY}): a test key, never a real one
  --queue     a queue to make at start, with dead letters as any admin makes them (repeatable)
  --json      one JSON line { url, apiKey, queues } instead of the text

Exit status: 0 stopped by a signal, 1 could not start (e.g. the port is taken), 2 usage.`;

export interface SimulatorCliIo {
  out(line: string): void;
  err(line: string): void;
}

export interface RunningSimulator {
  simulator: InfraiSimulator;
  /** One URL per --queue, in the order given. */
  queueUrls: string[];
}

/** What the command line asks for, or a usage error (exit 2). */
export function parseSimulatorArgs(
  argv: readonly string[],
):
  | { ok: true; port: number; host: string; apiKey: string; queues: string[]; json: boolean; help: boolean }
  | { ok: false; message: string } {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      // `pnpm simulator -- --port 4010` passes the `--` on.
      args: argv[0] === '--' ? argv.slice(1) : [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'api-key': { type: 'string' },
        queue: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch {
    // Not node's message, which quotes the argument: it may be a key typed in the wrong place.
    return {
      ok: false,
      message: 'an unknown option, a flag without its value, or an argument it does not take',
    };
  }
  const portText = (values.port as string | undefined) ?? '4010';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65_535) {
    return { ok: false, message: '--port takes a whole number from 0 to 65535' };
  }
  const apiKey = (values['api-key'] as string | undefined) ?? DEFAULT_SIMULATOR_API_KEY;
  if (apiKey === '' || /\s/.test(apiKey))
    return { ok: false, message: '--api-key takes a key without spaces' };
  return {
    ok: true,
    port,
    host: (values.host as string | undefined) ?? '127.0.0.1',
    apiKey,
    queues: (values.queue as string[] | undefined) ?? [],
    json: values.json === true,
    help: values.help === true,
  };
}

/** Starts the simulator and makes the queues asked for; prints where it is. */
export async function startSimulatorFromArgs(
  options: { port: number; host: string; apiKey: string; queues: readonly string[]; json: boolean },
  io: SimulatorCliIo,
): Promise<RunningSimulator> {
  const simulator = await startInfraiSimulator({
    port: options.port,
    host: options.host,
    apiKeys: [options.apiKey],
  });
  const host = new URL(simulator.url).host;
  const queueUrls: string[] = [];
  try {
    const admin = await createInfraiAdapter({ apiKey: simulator.apiKey }).admin!(
      new URL(`infrai://${host}?tls=false`),
      {},
    );
    for (const name of options.queues) queueUrls.push(await admin.createQueue({ name }));
    await admin.close();
  } catch (error) {
    await simulator.close();
    throw error;
  }
  if (options.json) {
    io.out(JSON.stringify({ url: simulator.url, apiKey: simulator.apiKey, queues: queueUrls }));
  } else {
    io.out(`Infrai simulator on ${simulator.url}`);
    io.out(`  API key: ${simulator.apiKey} (a test key: export INFRAI_API_KEY=${simulator.apiKey})`);
    io.out(`  provider URL: infrai://${host}?tls=false`);
    for (const url of queueUrls) io.out(`  queue: ${url}`);
    io.out('SIGINT (Ctrl-C) or SIGTERM stops it.');
  }
  return { simulator, queueUrls };
}

/** The bin: runs until SIGINT or SIGTERM, then closes the server and exits 0. */
export function runSimulatorCli(argv: readonly string[], io: SimulatorCliIo = consoleIo): void {
  const parsed = parseSimulatorArgs(argv);
  if (!parsed.ok) {
    io.err(`infrai-simulator: ${parsed.message}`);
    io.err(SIMULATOR_USAGE);
    process.exitCode = 2;
    return;
  }
  if (parsed.help) {
    io.out(SIMULATOR_USAGE);
    return;
  }
  startSimulatorFromArgs(parsed, io).then(
    ({ simulator }) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        simulator.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      io.err(
        code === 'EADDRINUSE'
          ? `infrai-simulator: ${parsed.host}:${parsed.port} is taken; pick another --port (0 for a free one)`
          : `infrai-simulator: could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
      process.exitCode = 1;
    },
  );
}

const consoleIo: SimulatorCliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
