import type { DiscoverySnapshot } from '../discovery/discovery-format';
import { SimulatorError } from './simulator-error';

/**
 * What a test makes go wrong. Each fault matches the next `count` requests (default 1) of its
 * `capability` (a capability id, or `discovery` for both discovery routes); without one it
 * matches every queue capability, never discovery, so a client's discovery fetch does not eat
 * a burst meant for its calls.
 */
export type InfraiFault =
  | (FaultScope & {
      kind: 'status';
      status: number;
      /** Default: the code the snapshot lists for this status and capability. */
      code?: string;
      /** Sent as Retry-After on a 429; default 1. */
      retryAfterSeconds?: number;
    })
  /** The socket is destroyed once the request has arrived, before anything is done. */
  | (FaultScope & { kind: 'drop-before' })
  /** The request is processed and committed, then the socket is destroyed without an answer. */
  | (FaultScope & { kind: 'drop-after' })
  /** Real milliseconds before the request is processed; combines with one other fault. */
  | (FaultScope & { kind: 'slow'; delayMs: number });

export interface FaultScope {
  capability?: string;
  /** How many matching requests it applies to; Infinity for all of them. */
  count?: number;
}

export type ActionFault = Exclude<InfraiFault, { kind: 'slow' }>;

export interface TakenFaults {
  delayMs: number;
  action: ActionFault | undefined;
}

export interface SimulatorFaults {
  inject(fault: InfraiFault): void;
  clear(): void;
  /** Faults still waiting for a request. */
  pending(): readonly InfraiFault[];
}

interface Armed {
  fault: InfraiFault;
  left: number;
}

export const DISCOVERY_FAULT_SCOPE = 'discovery';

export class FaultPlan implements SimulatorFaults {
  #armed: Armed[] = [];

  inject(fault: InfraiFault): void {
    const count = fault.count ?? 1;
    if (!(count > 0)) throw new RangeError(`a fault's count must be positive, not ${count}`);
    if (fault.kind === 'slow' && !(fault.delayMs >= 0))
      throw new RangeError('a slow fault needs delayMs >= 0');
    if (
      fault.kind === 'status' &&
      !(Number.isInteger(fault.status) && fault.status >= 400 && fault.status <= 599)
    ) {
      throw new RangeError(`a status fault needs an HTTP error status, not ${fault.status}`);
    }
    this.#armed.push({ fault, left: count });
  }

  clear(): void {
    this.#armed = [];
  }

  pending(): readonly InfraiFault[] {
    return this.#armed.map((a) => a.fault);
  }

  /** The first matching slow fault and the first matching other fault, each used up once. */
  take(scope: string): TakenFaults {
    const slow = this.#use(scope, (f) => f.kind === 'slow');
    const action = this.#use(scope, (f) => f.kind !== 'slow');
    return {
      delayMs: slow?.kind === 'slow' ? slow.delayMs : 0,
      action: action?.kind === 'slow' ? undefined : action,
    };
  }

  #use(scope: string, wanted: (fault: InfraiFault) => boolean): InfraiFault | undefined {
    const armed = this.#armed.find(
      (a) =>
        wanted(a.fault) &&
        (a.fault.capability === undefined ? scope !== DISCOVERY_FAULT_SCOPE : a.fault.capability === scope),
    );
    if (!armed) return undefined;
    armed.left -= 1;
    if (armed.left <= 0) this.#armed = this.#armed.filter((a) => a !== armed);
    return armed.fault;
  }
}

/**
 * The error a status fault answers: by default the code the snapshot lists for that status
 * (the capability's own list first), with its retryable flag; a code the snapshot does not
 * know is retryable as its status suggests.
 */
export function injectedError(
  snapshot: DiscoverySnapshot,
  capability: string,
  fault: Extract<InfraiFault, { kind: 'status' }>,
): SimulatorError {
  const errors = [
    ...(snapshot.capabilities[capability]?.errors ?? []),
    ...Object.values(snapshot.capabilities).flatMap((contract) => contract.errors),
  ];
  const listed =
    fault.code === undefined
      ? errors.find((e) => e.http_status === fault.status)
      : errors.find((e) => e.code === fault.code);
  return new SimulatorError(
    fault.code ?? listed?.code ?? `HTTP_${fault.status}`,
    `injected fault: HTTP ${fault.status}`,
    {
      status: fault.status,
      retryable: listed?.retryable ?? (fault.status === 429 || fault.status >= 500),
      headers: fault.status === 429 ? { 'retry-after': String(fault.retryAfterSeconds ?? 1) } : {},
    },
  );
}
