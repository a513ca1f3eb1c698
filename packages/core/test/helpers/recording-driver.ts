import { encodeEnvelope, prepareEnvelope } from '@queueport/core';
import type {
  BatchLimits,
  Capabilities,
  DeadLetterEntry,
  Driver,
  DriverMessage,
  ErrorClassifier,
  ExtendEntry,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
  ReleaseEntry,
  SettleOutcome,
} from '@queueport/core/driver';

/** The same limit for every operation, as most providers have. */
export function batchOf(n: number): BatchLimits {
  return { publish: n, receive: n, settle: n };
}

/** A manifest at the portable limits; override what a test needs. */
export function testCapabilities(overrides: Partial<Capabilities> = {}): Capabilities {
  return {
    maxBodyBytes: 262_144,
    delay: { maxSeconds: 604_800, nativeMaxSeconds: 604_800, fractional: false },
    dedupe: { kind: 'none' },
    ordering: 'none',
    leaseExtension: true,
    leaseSeconds: { min: 0, max: 43_200 },
    longPollMaxSeconds: 20,
    receiveCount: true,
    retentionSeconds: 14 * 86_400,
    batch: batchOf(10),
    staleReceipt: 'rejected',
    deadLetter: { move: true, redriveAfterReceives: null },
    ...overrides,
  };
}

/** Decides one publish outcome: `call` counts publish calls from 0, `position` is the index in that call. */
export type OutcomeRule = (message: OutgoingMessage, call: number, position: number) => PublishOutcome;

export type SettleOperation = 'ack' | 'release' | 'extendLease' | 'deadLetter';

/** Decides one settle outcome; `call` counts calls of that operation from 0. */
export type SettleRule = (operation: SettleOperation, receipt: string, call: number) => SettleOutcome;

export interface RecordingDriverOptions {
  capabilities?: Partial<Capabilities>;
  outcome?: OutcomeRule;
  /** Thrown by publish call number `call` (from 0) instead of returning outcomes. */
  publishThrows?: (call: number) => unknown;
  /** Replaces the outcomes of a publish call wholesale (to test a driver that miscounts). */
  rawOutcomes?: (messages: readonly OutgoingMessage[]) => PublishOutcome[];
  /** Per-entry outcomes of ack, release, extendLease and deadLetter; all succeed by default. */
  settleOutcome?: SettleRule;
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
  /** Every settle call as sent, entries as receipts, in order. */
  readonly settleCalls: Array<{ operation: SettleOperation; receipts: string[] }> = [];
  /** Entries that succeeded, flattened across calls. */
  readonly acks: string[] = [];
  readonly releases: ReleaseEntry[] = [];
  readonly extensions: ExtendEntry[] = [];
  readonly deadLettered: DeadLetterEntry[] = [];
  readonly inbox: DriverMessage[] = [];
  readonly classifyError?: ErrorClassifier;
  readonly extendLease?: (entries: readonly ExtendEntry[]) => Promise<SettleOutcome[]>;
  readonly deadLetter?: (entries: readonly DeadLetterEntry[]) => Promise<SettleOutcome[]>;
  closeCalls = 0;
  readonly #options: RecordingDriverOptions;
  #nextId = 0;

  constructor(options: RecordingDriverOptions = {}) {
    this.#options = options;
    this.capabilities = testCapabilities(options.capabilities);
    if (options.classifyError) this.classifyError = options.classifyError;
    if (!options.withoutExtendLease) {
      this.extendLease = async (entries) => this.#settle('extendLease', entries, this.extensions);
    }
    if (!options.withoutDeadLetter) {
      this.deadLetter = async (entries) => this.#settle('deadLetter', entries, this.deadLettered);
    }
  }

  /** Every message the driver was handed, across all publish calls, in order. */
  get published(): OutgoingMessage[] {
    return this.publishCalls.flat();
  }

  /** The settle calls of one operation, as lists of receipts. */
  callsOf(operation: SettleOperation): string[][] {
    return this.settleCalls.filter((call) => call.operation === operation).map((call) => call.receipts);
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

  async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    return this.#settle(
      'ack',
      receipts.map((receipt) => ({ receipt })),
      [],
    ).map((outcome, i) => {
      if (outcome.ok) this.acks.push(receipts[i]!);
      return outcome;
    });
  }

  async release(entries: readonly ReleaseEntry[]): Promise<SettleOutcome[]> {
    return this.#settle('release', entries, this.releases);
  }

  async close(): Promise<void> {
    this.closeCalls++;
  }

  #settle<E extends { receipt: string }>(operation: SettleOperation, entries: readonly E[], done: E[]) {
    const call = this.callsOf(operation).length;
    this.settleCalls.push({ operation, receipts: entries.map((e) => e.receipt) });
    return entries.map((entry): SettleOutcome => {
      const outcome = this.#options.settleOutcome?.(operation, entry.receipt, call) ?? { ok: true };
      if (outcome.ok) done.push({ ...entry });
      return outcome;
    });
  }
}

/** `count` messages in the driver's inbox: envelopes evt_0… with receipts r-0…, received once. */
export function fillInbox(driver: RecordingDriver, count: number): void {
  for (let n = 0; n < count; n++) {
    const envelope = prepareEnvelope({ event_id: `evt_${n}`, type: 't', payload: { n } });
    driver.inbox.push({
      receipt: `r-${n}`,
      messageId: `m-${n}`,
      body: encodeEnvelope(envelope),
      attributes: {},
      receiveCount: 1,
    });
  }
}
