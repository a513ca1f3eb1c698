import { Queue, type QueueAdmin } from '@queueport/core';
import type { Driver } from '@queueport/core/driver';
import { sqsAdapter } from '../../src';
import { sqsProviderUrl, sqsServer } from './sqs';

/**
 * The depth `admin.stats` reports for a queue holding `inFlight` leased messages and `other`
 * visible or delayed ones. local-aws-sqs 2.0.2 counts a leased message in
 * ApproximateNumberOfMessages as well as in ApproximateNumberOfMessagesNotVisible, so there
 * each one counts twice; moto and AWS count it once.
 */
export function depthHolding(inFlight: number, other = 0): number {
  return inFlight * (sqsServer === 'local-aws-sqs' ? 2 : 1) + other;
}

let made = 0;

/**
 * Scratch queues on the test server through the admin surface, each with its dead-letter queue
 * (a redrive after 5 receives), and the Queues opened over them; `dispose` closes the Queues,
 * deletes the queues and closes the admin.
 */
export class ScratchQueues {
  readonly admin: QueueAdmin;
  readonly #prefix: string;
  readonly #cleanups: Array<() => Promise<void>> = [];

  private constructor(admin: QueueAdmin, prefix: string) {
    this.admin = admin;
    this.#prefix = prefix;
  }

  /** `query`: driver options every queue URL carries (nativeMaxDelaySeconds, ...). */
  static async open(prefix: string, query: Record<string, string | number> = {}): Promise<ScratchQueues> {
    const admin = await sqsAdapter.admin!(new URL(sqsProviderUrl(query)), { env: process.env });
    return new ScratchQueues(admin, prefix);
  }

  /** A new queue (`.fifo` added for a FIFO one); returns the sqs:// URL that opens it. */
  async create({ fifo }: { fifo: boolean }): Promise<string> {
    // Unique per run: a FIFO queue would absorb a rerun's event ids for 5 minutes.
    const name = `qp-${this.#prefix}-${process.pid}-${Date.now().toString(36)}-${++made}`;
    const url = await this.admin.createQueue({
      name,
      redriveAfterReceives: 5,
      ...(fifo ? { settings: { fifo: true } } : {}),
    });
    this.#cleanups.push(() => this.admin.deleteQueue(url));
    return url;
  }

  /** `new Queue(driver)` over the adapter's driver for `url`, `wrap`ped if given; closed by dispose. */
  async open(url: string, wrap: (driver: Driver) => Driver = (driver) => driver): Promise<Queue> {
    const queue = new Queue(wrap(await sqsAdapter.open(new URL(url), { env: process.env })));
    this.#cleanups.push(() => queue.close());
    return queue;
  }

  async dispose(): Promise<void> {
    const failures: unknown[] = [];
    for (const cleanup of this.#cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => failures.push(error));
    }
    await this.admin.close();
    if (failures.length > 0) throw new AggregateError(failures, 'scratch queue cleanup failed');
  }
}
