import { isQueueError, redactSecrets } from '@queueport/core';
import { ConfigError, UsageError } from '../errors';
import type { CheckResult } from '../report/report-types';

/** Why a step failed, already in plain words: it goes into the report as it is. */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
}

export const EARLIER_STEP_FAILED = 'an earlier step failed';
export const INTERRUPTED = 'not run: the drill was interrupted';

export interface StepRunner {
  /** The step passes with what `run` returns (what was measured), or fails with why, in plain words. */
  run(
    check: Pick<CheckResult, 'id' | 'title'>,
    run: () => Promise<string>,
    explain?: (error: unknown) => string,
  ): Promise<CheckResult>;
  skipped(check: Pick<CheckResult, 'id' | 'title'>, reason: string): CheckResult;
  /** A step whose outcome was measured elsewhere (one of several checks a single call made). */
  recorded(
    check: Pick<CheckResult, 'id' | 'title'>,
    outcome: { ok: boolean; detail: string; durationMs: number },
  ): CheckResult;
}

/**
 * Steps of one provider, each timed on the command's clock. Details pass through the secrets the
 * drill itself read (the receiver's signing secret), besides the output's own redaction, so a
 * report built here is safe before anyone prints it.
 */
export function stepRunner(
  provider: string,
  now: () => number,
  secrets: readonly string[],
  progress: (line: string, options?: { running?: boolean }) => void,
): StepRunner {
  const finish = (result: CheckResult): CheckResult => {
    const shown = result.detail ? ` (${firstLine(result.detail)})` : '';
    progress(`drill ${provider}: ${result.id} ${result.status} in ${result.durationMs} ms${shown}`);
    return result;
  };
  return {
    async run(check, run, explain = describeFailure) {
      progress(`drill ${provider}: ${check.id}`, { running: true });
      const started = now();
      const base = { id: check.id, title: check.title, provider };
      try {
        const detail = await run();
        const durationMs = Math.round(now() - started);
        return finish({ ...base, status: 'passed', durationMs, detail: redactSecrets(detail, secrets) });
      } catch (error) {
        // Nothing was checked: these end the command with exit 2, as for every command.
        if (error instanceof UsageError) throw error;
        const durationMs = Math.round(now() - started);
        const detail = error instanceof StepFailure ? error.message : explain(error);
        return finish({ ...base, status: 'failed', durationMs, detail: redactSecrets(detail, secrets) });
      }
    },
    recorded(check, { ok, detail, durationMs }) {
      return finish({
        id: check.id,
        title: check.title,
        provider,
        status: ok ? 'passed' : 'failed',
        durationMs: Math.round(durationMs),
        detail: redactSecrets(detail, secrets),
      });
    },
    skipped(check, reason) {
      return finish({
        id: check.id,
        title: check.title,
        provider,
        status: 'skipped',
        durationMs: 0,
        detail: reason,
      });
    },
  };
}

/**
 * `work`, or a StepFailure once `ms` have passed. The work cannot be cancelled, so `onLate` gets
 * whatever it resolves to after the bound (an opened provider, to be closed).
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  options: { onLate?: (value: T) => unknown; shownMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const { signal } = options;
  let onAbort: (() => void) | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      const shown = options.shownMs ?? ms;
      reject(
        new StepFailure(
          `no answer within ${shown} ms while ${what} (raise --timeout-ms if the provider is this slow)`,
        ),
      );
    }, ms);
    // Stopped by a signal, the drill does not wait out the bound: cleanup has seconds, not minutes.
    onAbort = () => {
      late = true;
      reject(new StepFailure(`interrupted while ${what}`));
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  work.then(
    (value) => {
      if (late) void Promise.resolve(options.onLate?.(value)).catch(() => undefined);
    },
    () => undefined,
  );
  return Promise.race([work, bound]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

/** What went wrong in a step other than opening, by the error taxonomy's code, in plain words. */
export function describeFailure(error: unknown): string {
  if (error instanceof ConfigError) return `misconfigured: ${error.message}`;
  if (!isQueueError(error)) return error instanceof Error ? error.message : String(error);
  const said = error.message;
  switch (error.code) {
    case 'UNAUTHORIZED':
      return `credentials refused: ${said}`;
    case 'NOT_FOUND':
      return `the queue does not exist: ${said}`;
    case 'UNAVAILABLE':
      return `the provider could not be reached: ${said}`;
    case 'RATE_LIMITED':
      return `the provider is rate limiting: ${said}`;
    case 'CLOSED':
      return `the queue was closed: ${said}`;
    default:
      return `${error.code}: ${said}`;
  }
}

/**
 * Why a provider did not open. The adapters say which part of the URL is wrong; this names the
 * kind of mistake first, so a person reading a CI log knows where to look.
 */
export function describeOpenFailure(error: unknown): string {
  if (!isQueueError(error)) return describeFailure(error);
  const details = error.details ?? {};
  if (error.code === 'UNAUTHORIZED') {
    // No key at all is a setup mistake, not the provider saying no.
    return details.field === 'keyEnv' || details.field === 'apiKey'
      ? `credentials missing: ${error.message}`
      : `credentials refused: ${error.message}`;
  }
  if (error.code === 'INVALID_ARGUMENT') {
    return typeof details.scheme === 'string'
      ? `unknown scheme: ${error.message}`
      : `misconfigured URL: ${error.message}`;
  }
  return describeFailure(error);
}

export function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
