/**
 * The points where a worker can die between receiving a message and settling it. The crash
 * window proper is between `after-send` (the receiver accepted) and `after-commit`: no queue can
 * settle that, only the Idempotency-Key and reconciliation can.
 */
export const CRASH_POINTS = [
  'after-receive',
  'after-claim',
  'after-send',
  'after-commit',
  'before-ack',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Decides, at each point, whether this worker dies there. Tests only. */
export type CrashInjector = (point: CrashPoint, eventId: string) => boolean;

/** Thrown at an injected crash point: the worker abandons the delivery without settling anything. */
export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
  readonly point: CrashPoint;

  constructor(point: CrashPoint, eventId: string) {
    super(`simulated crash ${point} for ${eventId}`);
    this.point = point;
  }
}
