import { isQueueError } from '@queueport/core';
import { ConfigError, UsageError } from '../errors';
import type { CliIo } from '../io';
import type { CheckResult, CommandReport } from './report-types';

/** What a check says when what it checked threw: the taxonomy's code first, where there is one. */
export function describeError(error: unknown): string {
  if (isQueueError(error)) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Builds a CommandReport as a command runs: checks timed on io.now(), a thrown error turned
 * into a failed check (a usage or configuration error still propagates: nothing was checked).
 */
export class ReportBuilder {
  readonly #io: Pick<CliIo, 'now'>;
  readonly #started: number;
  readonly #startedAt = new Date().toISOString();
  readonly checks: CheckResult[] = [];

  constructor(
    readonly command: string,
    io: Pick<CliIo, 'now'>,
  ) {
    this.#io = io;
    this.#started = io.now();
  }

  add(check: CheckResult): CheckResult {
    this.checks.push(check);
    return check;
  }

  /** Runs one check: it passes with the detail `run` returns, or fails with what it threw. */
  async measure(
    check: Pick<CheckResult, 'id' | 'title' | 'provider'>,
    run: () => Promise<string | undefined>,
  ): Promise<CheckResult> {
    const started = this.#io.now();
    const base = {
      id: check.id,
      title: check.title,
      ...(check.provider ? { provider: check.provider } : {}),
    };
    try {
      const detail = await run();
      return this.add({
        ...base,
        status: 'passed',
        durationMs: Math.round(this.#io.now() - started),
        ...(detail ? { detail } : {}),
      });
    } catch (error) {
      if (error instanceof UsageError || error instanceof ConfigError) throw error;
      return this.add({
        ...base,
        status: 'failed',
        durationMs: Math.round(this.#io.now() - started),
        detail: describeError(error),
      });
    }
  }

  build(extra: Pick<CommandReport, 'summary' | 'notes' | 'rows' | 'tables'> = {}): CommandReport {
    return {
      command: this.command,
      ok: this.checks.every((check) => check.status !== 'failed'),
      startedAt: this.#startedAt,
      durationMs: Math.round(this.#io.now() - this.#started),
      checks: this.checks,
      ...(extra.summary ? { summary: extra.summary } : {}),
      ...(extra.notes && extra.notes.length > 0 ? { notes: extra.notes } : {}),
      ...(extra.rows ? { rows: extra.rows } : {}),
      ...(extra.tables ? { tables: extra.tables } : {}),
    };
  }
}
