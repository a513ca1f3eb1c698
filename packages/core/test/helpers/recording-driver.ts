import type {
  Capabilities,
  Driver,
  DriverMessage,
  ErrorClassifier,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
} from '@queueport/core';

/** A manifest at the portable limits; override what a test needs. */
export function testCapabilities(overrides: Partial<Capabilities> = {}): Capabilities {
  return {
    maxBodyBytes: 262_144,
    delay: { maxSeconds: 604_800, nativeMaxSeconds: 604_800, fractional: false },
    dedupe: { kind: 'none' },
    ordering: 'none',
    leaseExtension: true,
    leaseSeconds: { min: 0, max: 43_200 },
    receiveCount: true,
    retentionSeconds: 14 * 86_400,
    batchMax: 10,
    deadLetter: true,
    ...overrides,
  };
}

/** Decides one publish outcome: `call` counts publish calls from 0, `position` is the index in that call. */
export type OutcomeRule = (message: OutgoingMessage, call: number, position: number) => PublishOutcome;

export interface RecordingDriverOptions {
  capabilities?: Partial<Capabilities>;
  outcome?: OutcomeRule;
  /** Thrown by publish call number `call` (from 0) instead of returning outcomes. */
  publishThrows?: (call: number) => unknown;
  /** Replaces the outcomes of a publish call wholesale (to test a driver that miscounts). */
  rawOutcomes?: (messages: readonly OutgoingMessage[]) => PublishOutcome[];
  classifyError?: ErrorClassifier;
  /** Leave out extendLease / deadLetter, as a driver without those capabilities would. */
  withoutExtendLease?: boolean;
  withoutDeadLetter?: boolean;
}

/**
 * A driver that does nothing but record what the Queue asks of it: publish calls, receives,
 * settlements. Messages to receive are pushed into `inbox` by the test.
 */
export class RecordingDriver implements Driver {
  readonly name = 'recording';
  readonly capabilities: Capabilities;
  readonly publishCalls: OutgoingMessage[][] = [];
  readonly receiveCalls: ReceiveRequest[] = [];
  readonly acks: string[] = [];
  readonly releases: Array<{ receipt: string; delaySeconds: number }> = [];
  readonly extensions: Array<{ receipt: string; leaseSeconds: number }> = [];
  readonly deadLettered: Array<{ receipt: string; reason: string }> = [];
  readonly inbox: DriverMessage[] = [];
  readonly classifyError?: ErrorClassifier;
  readonly extendLease?: (receipt: string, leaseSeconds: number) => Promise<void>;
  readonly deadLetter?: (receipt: string, reason: string) => Promise<void>;
  closeCalls = 0;
  readonly #options: RecordingDriverOptions;
  #nextId = 0;

  constructor(options: RecordingDriverOptions = {}) {
    this.#options = options;
    this.capabilities = testCapabilities(options.capabilities);
    if (options.classifyError) this.classifyError = options.classifyError;
    if (!options.withoutExtendLease) {
      this.extendLease = async (receipt, leaseSeconds) => {
        this.extensions.push({ receipt, leaseSeconds });
      };
    }
    if (!options.withoutDeadLetter) {
      this.deadLetter = async (receipt, reason) => {
        this.deadLettered.push({ receipt, reason });
      };
    }
  }

  /** Every message the driver was handed, across all publish calls, in order. */
  get published(): OutgoingMessage[] {
    return this.publishCalls.flat();
  }

  async publish(messages: readonly OutgoingMessage[]): Promise<PublishOutcome[]> {
    const call = this.publishCalls.length;
    this.publishCalls.push([...messages]);
    const thrown = this.#options.publishThrows?.(call);
    if (thrown !== undefined) throw thrown;
    if (this.#options.rawOutcomes) return this.#options.rawOutcomes(messages);
    const rule: OutcomeRule =
      this.#options.outcome ?? (() => ({ ok: true, messageId: `m-${this.#nextId++}` }));
    return messages.map((message, position) => rule(message, call, position));
  }

  async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.receiveCalls.push(request);
    return this.inbox.splice(0, request.maxMessages);
  }

  async ack(receipt: string): Promise<void> {
    this.acks.push(receipt);
  }

  async release(receipt: string, delaySeconds: number): Promise<void> {
    this.releases.push({ receipt, delaySeconds });
  }

  async close(): Promise<void> {
    this.closeCalls++;
  }
}
