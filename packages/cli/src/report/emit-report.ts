import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliIo } from '../io';
import { formatHuman } from './human';
import { formatJson } from './json';
import { formatJunit } from './junit';
import type { Redactor } from './redact-output';
import type { CommandReport } from './report-types';

export interface EmitOptions {
  json: boolean;
  /** Relative to io.cwd. */
  junitPath: string | undefined;
  color: boolean;
  redactor: Redactor;
}

/**
 * Prints the report (for people, or as JSON) and writes the JUnit file when asked, failed runs
 * included. Every format is redacted twice: each string before it is serialized, so escaping
 * cannot disguise a secret, and the serialized text after, so nothing a format adds slips by.
 */
export async function emitReport(report: CommandReport, io: CliIo, options: EmitOptions): Promise<void> {
  const { redactor } = options;
  const clean = redactor.report(report);
  io.stdout(redactor.text(options.json ? formatJson(clean) : formatHuman(clean, { color: options.color })));
  if (options.junitPath) {
    const file = path.resolve(io.cwd, options.junitPath);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, redactor.text(formatJunit(clean)), 'utf8');
  }
}
