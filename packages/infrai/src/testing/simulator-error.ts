import type { DiscoverySnapshot } from '../discovery/discovery-format';

export interface SimulatorErrorOptions {
  hint?: string;
  /** Only where the code is not in the snapshot (a fault's arbitrary status). */
  status?: number;
  retryable?: boolean;
  headers?: Readonly<Record<string, string>>;
}

/** A refusal the simulator answers as Infrai would: an error envelope with the snapshot's status. */
export class SimulatorError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly options: SimulatorErrorOptions = {},
  ) {
    super(message);
    this.name = 'SimulatorError';
  }
}

/**
 * For codes no capability lists (discovery's and routing's own), or a snapshot a test has cut
 * down; every other status and retryable flag comes from the snapshot.
 */
const FALLBACK: Readonly<Record<string, { status: number; retryable: boolean }>> = {
  NOT_FOUND: { status: 404, retryable: false },
  UNAUTHORIZED: { status: 401, retryable: false },
  VALIDATION_ERROR: { status: 400, retryable: false },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false },
  INSUFFICIENT_CREDIT: { status: 402, retryable: false },
  RATE_LIMITED: { status: 429, retryable: true },
  SERVICE_UNAVAILABLE: { status: 503, retryable: true },
  INTERNAL_ERROR: { status: 500, retryable: true },
};

/** The HTTP status and retryable flag of a code: the capability's list, then any capability's. */
export function errorShape(
  snapshot: DiscoverySnapshot,
  capability: string | undefined,
  code: string,
): { status: number; retryable: boolean } {
  const own = capability ? snapshot.capabilities[capability]?.errors.find((e) => e.code === code) : undefined;
  const listed =
    own ??
    Object.values(snapshot.capabilities)
      .flatMap((contract) => contract.errors)
      .find((e) => e.code === code);
  if (listed) return { status: listed.http_status, retryable: listed.retryable };
  return FALLBACK[code] ?? { status: 500, retryable: true };
}
