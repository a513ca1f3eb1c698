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
 * included. The report is masked value by value before any format encodes it, and the encoded
 * text is never masked again: a secret that is also a word in the markup (`test` in
 * `testsuites`) must not break the XML or the JSON. What could not be masked is said in a note.
 */
export async function emitReport(report: CommandReport, io: CliIo, options: EmitOptions): Promise<void> {
  const { redactor } = options;
  const warnings = redactor.notes();
  const clean = redactor.report(
    warnings.length > 0 ? { ...report, notes: [...(report.notes ?? []), ...warnings] } : report,
  );
  io.stdout(options.json ? formatJson(clean) : formatHuman(clean, { color: options.color }));
  if (options.junitPath) {
    const file = path.resolve(io.cwd, options.junitPath);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, formatJunit(clean), 'utf8');
  }
}
