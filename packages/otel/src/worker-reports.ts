/**
 * What the instrumentation reads of a delivery worker, written out here so this package needs
 * no dependency on `@queueport/webhook`: its `DeliveryWorker` fits these shapes.
 */
export interface WorkerReport {
  eventId: string;
  result: string;
  attempt?: number;
  outcome?: { kind: string; status?: number; attemptMs: number };
  crashedAt?: string;
  destinationId?: string;
  occurredAt: string;
}

export interface ReportingWorker {
  on(name: 'report', listener: (report: WorkerReport) => void): () => void;
  on(name: 'retry', listener: (retry: { attempt: number }) => void): () => void;
}

/**
 * The ledger's answer to the worker's claim, as the report shows it: `claimed` (an attempt
 * went ahead), `already-settled` (delivered or failed before), `busy` (another worker holds the
 * lease), `conflict` (the same event id with another payload). Undefined when the worker died
 * before it claimed, or held the delivery back before claiming (`rate-limited`).
 */
export function claimOutcomeOf(report: WorkerReport): string | undefined {
  switch (report.result) {
    case 'already-settled':
    case 'busy':
    case 'conflict':
      return report.result;
    case 'crashed':
      return report.crashedAt === 'after-receive' ? undefined : 'claimed';
    // Held back by a destination's rate limit before any claim.
    case 'rate-limited':
      return undefined;
    default:
      return 'claimed';
  }
}
