import { SimulatorError } from './simulator-error';

/**
 * Billable requests left. Only a call that did something is charged: a refusal, and an
 * idempotent replay (answered with `cache_hit: true`), are free, so a retried request never
 * costs twice.
 */
export class CreditAccount {
  #left: number | undefined;

  constructor(left: number | undefined) {
    this.set(left);
  }

  get left(): number | undefined {
    return this.#left;
  }

  set(left: number | undefined): void {
    if (left !== undefined && !(Number.isInteger(left) && left >= 0)) {
      throw new RangeError(`credit must be a whole number of requests, not ${left}`);
    }
    this.#left = left;
  }

  ensure(): void {
    if (this.#left !== undefined && this.#left <= 0) {
      throw new SimulatorError('INSUFFICIENT_CREDIT', 'the account has no credit left', {
        hint: 'add credit to the project, then retry',
      });
    }
  }

  charge(): void {
    if (this.#left !== undefined) this.#left = Math.max(0, this.#left - 1);
  }
}
