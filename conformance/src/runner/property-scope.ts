import fc from 'fast-check';
import type { ConformanceHarness, QueueUnderTest } from '../harness';

/**
 * Everything one property run opened, so the runner can take it all down when the run overruns
 * its budget or is interrupted: the property's own `finally` may never run then (it is stuck in
 * a provider call), yet its scratch queues must not outlive the run. Also collects the checks
 * the property could not make (`notes`), for the report.
 */
export class PropertyScope {
  readonly #harness: ConformanceHarness;
  readonly #open = new Set<QueueUnderTest>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #notes = new Set<string>();
  #stopped = false;
  #opened = 0;

  constructor(harness: ConformanceHarness) {
    this.#harness = harness;
  }

  /** The harness the property builds on: same settings, its queues tracked by this scope. */
  get harness(): ConformanceHarness {
    const inner = this.#harness;
    const missing = inner.createMissingQueue?.bind(inner);
    return {
      ...inner,
      createQueue: () => this.#track(() => inner.createQueue()),
      ...(missing ? { createMissingQueue: () => this.#track(missing) } : {}),
    };
  }

  /** Queues opened so far: how far a stopped run got. */
  get opened(): number {
    return this.#opened;
  }

  get notes(): string[] {
    return [...this.#notes];
  }

  /**
   * Refuses every later queue, then disposes of every queue still open (and of those being
   * opened right now, once they are). Waits at most `timeoutMs`; returns whether all were done.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.#stopped = true;
    const work = (async () => {
      await Promise.allSettled([...this.#pending]);
      await Promise.allSettled([...this.#open].map((under) => under.dispose?.()));
    })();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([work.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #track(create: () => Promise<QueueUnderTest>): Promise<QueueUnderTest> {
    // A skipped run, not a failed one: fast-check then neither shrinks nor reports it, and a
    // run that is still going in the background after a stop ends quickly.
    if (this.#stopped) fc.pre(false);
    const creating = create();
    this.#pending.add(creating);
    let under: QueueUnderTest;
    try {
      under = await creating;
    } finally {
      this.#pending.delete(creating);
    }
    this.#opened++;
    const tracked = this.#tracked(under);
    if (this.#stopped) {
      await tracked.dispose();
      fc.pre(false);
    }
    this.#open.add(tracked);
    return tracked;
  }

  /** The same queue, disposed of at most once whoever asks first (the property or a stop). */
  #tracked(under: QueueUnderTest): QueueUnderTest & { dispose(): Promise<void> } {
    let disposing: Promise<void> | undefined;
    const tracked: QueueUnderTest & { dispose(): Promise<void> } = {
      ...under,
      dispose: () => {
        disposing ??= (async () => {
          try {
            await (under.dispose ? under.dispose() : under.queue.close());
          } finally {
            this.#open.delete(tracked);
          }
        })();
        return disposing;
      },
      note: (text: string) => {
        this.#notes.add(text);
        under.note?.(text);
      },
    };
    return tracked;
  }
}
