import { describe, expect, it } from 'vitest';
import { runPaymentWorkerDemo } from '../src/payment-worker-demo';

describe('payment webhook worker example', () => {
  it('delivers every payment exactly once despite a duplicate publish, a crash and a 503', async () => {
    const summary = await runPaymentWorkerDemo();
    expect(summary.events.map((e) => [e.eventId, e.effects, e.ledgerState])).toEqual([
      ['payment_8472:settled:v1', 1, 'delivered'],
      ['payment_8473:settled:v1', 1, 'delivered'],
      ['payment_8474:settled:v1', 1, 'delivered'],
    ]);
    // The crash happened, and a retry after a 503 happened: the demo really exercised both paths.
    expect(summary.reports.some((r) => r.result === 'crashed' && r.crashedAt === 'after-send')).toBe(true);
    expect(summary.reports.some((r) => r.result === 'retry-scheduled')).toBe(true);
    const crashed = summary.reports.find((r) => r.result === 'crashed')!.eventId;
    expect(summary.events.find((e) => e.eventId === crashed)?.attempts).toBe(2);
  });
});
