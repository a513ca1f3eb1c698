import type { RetentionProgress, RetentionStep } from '@queueport/ledger';
import { formatAge } from '../age-option';
import type { CommandContext } from '../command-context';
import { describeError, type ReportBuilder } from '../report/report-builder';

const TITLES: Record<RetentionStep, (age: string) => string> = {
  attempts: (age) => `attempts started more than ${age} ago`,
  history: (age) => `delivered and failed rows settled more than ${age} ago, with their attempts`,
  payloads: (age) => `stored payloads written more than ${age} ago`,
};

/** What each step prunes, for a check that did not run (no age to name). */
const STEP_NAMES: Record<RetentionStep, string> = {
  attempts: 'the attempt log',
  history: 'the ledger history',
  payloads: 'the stored payloads',
};

/** Turns applyRetention's progress into the report's checks, and lines for people on stderr. */
export class PruneStepChecks {
  readonly deleted: Record<RetentionStep, number> = { attempts: 0, history: 0, payloads: 0 };
  #running: { step: RetentionStep; title: string; since: number } | undefined;
  readonly #seen = new Set<RetentionStep>();

  constructor(
    private readonly builder: ReportBuilder,
    private readonly context: CommandContext,
    /** The steps asked for: each ends up with a check, run or not. */
    private readonly asked: readonly RetentionStep[],
  ) {}

  on(progress: RetentionProgress): void {
    const { step } = progress;
    if (progress.phase === 'started') {
      const title = TITLES[step](formatAge(progress.olderThanSeconds));
      this.#running = { step, title, since: this.context.io.now() };
      this.context.progress(`prune: ${title}`, { running: true });
      return;
    }
    if (progress.phase === 'skipped') {
      this.#add(step, STEP_NAMES[step], 'skipped', progress.detail, this.context.io.now());
      this.context.progress(`prune: ${step} skipped: ${progress.detail}`);
      return;
    }
    this.deleted[step] = progress.deleted;
    const running = this.#running!;
    this.#running = undefined;
    this.#add(step, running.title, 'passed', `${progress.deleted} deleted`, running.since);
    this.context.progress(`prune: ${step}: ${progress.deleted} deleted`);
  }

  /** The step under way failed; the ones after it never began. */
  failed(error: unknown): void {
    const now = this.context.io.now();
    if (this.#running) {
      const { step, title, since } = this.#running;
      this.#running = undefined;
      this.#add(step, title, 'failed', describeError(error), since);
    } else {
      // Between steps: still a failure the report must carry, or it would read as a clean run.
      this.builder.add({
        id: 'prune.error',
        title: 'queueport prune ran to the end',
        status: 'failed',
        durationMs: 0,
        detail: describeError(error),
      });
    }
    for (const step of this.asked) {
      if (!this.#seen.has(step))
        this.#add(step, STEP_NAMES[step], 'skipped', 'not begun: an earlier step failed', now);
    }
  }

  #add(
    step: RetentionStep,
    title: string,
    status: 'passed' | 'failed' | 'skipped',
    detail: string,
    since: number,
  ) {
    this.#seen.add(step);
    this.builder.add({
      id: `prune.${step}`,
      title,
      status,
      durationMs: Math.round(this.context.io.now() - since),
      detail,
    });
  }
}
