import { spawn } from 'node:child_process';

const TAIL_BYTES = 8192;

/** A server this module started as a child process. */
export interface ServiceProcess {
  readonly name: string;
  /** Why the process is gone (exit code, signal or spawn error); undefined while it runs. */
  exitReason(): string | undefined;
  /** The last lines it printed, for error messages. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL if it lingers. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash: nothing gets to flush or say goodbye. */
  kill(): Promise<void>;
  /** Synchronous best effort, for `process.on('exit')` where nothing can be awaited. */
  stopNow(): void;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: StartOptions = {},
): ServiceProcess {
  // Its own process group, so stopping it also stops anything it forked (wrapper scripts such as
  // pyenv shims) and a Ctrl-C meant for a test run does not race our orderly shutdown.
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-TAIL_BYTES);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let gone: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      gone ??= `could not run ${command}: ${error.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      gone ??= signal ? `exited on ${signal}` : `exited with code ${code}`;
      resolve();
    });
  });

  const signalGroup = (signal: NodeJS.Signals) => {
    if (gone || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  const exitedWithin = (ms: number) =>
    Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);

  return {
    name,
    exitReason: () => gone,
    tail: (lines = 20) => output.trimEnd().split('\n').slice(-lines).join('\n'),
    async stop() {
      signalGroup('SIGTERM');
      if (gone || (await exitedWithin(5000))) return;
      signalGroup('SIGKILL');
      await exitedWithin(2000);
    },
    async kill() {
      signalGroup('SIGKILL');
      if (!gone) await exitedWithin(5000);
    },
    stopNow: () => signalGroup('SIGTERM'),
  };
}

/** Error text for a server that did not come up: the cause plus what it printed. */
export function startFailure(proc: ServiceProcess, cause: unknown): Error {
  const message = cause instanceof Error ? cause.message : String(cause);
  const tail = proc.tail();
  return new Error(tail ? `${message}\n--- last output of ${proc.name} ---\n${tail}` : message);
}
