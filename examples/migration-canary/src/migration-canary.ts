import { type CliIo, type CommandReport, main } from '@queueport/cli';

export interface CanaryOutcome {
  exitCode: number;
  report: CommandReport;
}

/**
 * Runs `queueport migrate` between two providers and returns its report. Without a
 * configuration file the CLI's embedded defaults supply both: the memory driver as the
 * provider being left, the in-process Infrai simulator as the one being adopted, one SQLite
 * ledger and a loopback receiver. With a file, name your own (`--from bullmq --to sqs`).
 */
export async function runMigrationCanary(
  options: { from?: string; to?: string; events?: number; config?: string; rollback?: boolean } = {},
  log: (line: string) => void = () => {},
): Promise<CanaryOutcome> {
  let stdout = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => log(text.trimEnd()),
    isTTY: false,
    env: process.env,
    cwd: process.cwd(),
    now: () => performance.now(),
  };
  const argv = [
    'migrate',
    '--from',
    options.from ?? 'memory',
    '--to',
    options.to ?? 'infrai',
    '--events',
    String(options.events ?? 20),
    ...(options.rollback ? ['--rollback'] : []),
    ...(options.config ? ['--config', options.config] : []),
    '--json',
  ];
  const exitCode = await main(argv, io);
  return { exitCode, report: JSON.parse(stdout) as CommandReport };
}
