import { randomUUID } from 'node:crypto';
import {
  type AnyQueue,
  type Envelope,
  type JsonValue,
  type PublishInput,
  payloadDigest,
  prepareEnvelope,
  QueueError,
} from '@queueport/core';
import { type Ledger, type LedgerRecord, MAX_SCAN_LIMIT } from '@queueport/ledger';
import { listSome } from '../migrate/list-some';
import type { CheckResult } from '../report/report-types';

/** What the application's payload loader returns for an event id (the ledger never stores payloads). */
export interface LoadedPayload {
  type: string;
  payload: JsonValue;
  /** The business transition's time, kept on the republished envelope; the republish time otherwise. */
  occurred_at?: string;
}

/** The default export of the module `payloadLoader` names. `undefined`: the application has no such event. */
export type PayloadLoader = (eventId: string) => Promise<LoadedPayload | undefined>;

/**
 * Work for the application's reconcile workers (`--enqueue-scan`): envelopes on the queue
 * `--scan-provider` names, their `payload` one of `ReconcileWork`, to be handed to
 * `handleReconcileMessage` by whatever consumes that queue.
 *
 *   type `queueport.reconcile.republish`, event_id `queueport-reconcile:<run>:unit:<n>`:
 *     { "v": 1, "kind": "republish", "run": "<run>", "unit": <n>, "eventIds": ["…", …] }
 *     Load and republish these events (each is re-read from the ledger first, so one settled
 *     meanwhile is left alone).
 *   type `queueport.reconcile.scan`, event_id `queueport-reconcile:<run>:scan`:
 *     { "v": 1, "kind": "scan", "run": "<run>", "olderThanSeconds": S, "batch": N, "after": "<id>" | null }
 *     The scan did not finish in its budget: carry it on after that event id (keyset order of
 *     the ledger's scan), enqueueing republish units and, if need be, the next continuation.
 *
 * Ids only, never payloads: a unit stays small whatever the events weigh, and the payload is
 * loaded when it is republished, so it is the application's current one.
 */
export type ReconcileWork = RepublishUnit | ScanContinuation;

export interface RepublishUnit {
  v: 1;
  kind: 'republish';
  run: string;
  unit: number;
  eventIds: string[];
}

export interface ScanContinuation {
  v: 1;
  kind: 'scan';
  run: string;
  olderThanSeconds: number;
  batch: number;
  after: string | null;
}

export const RECONCILE_REPUBLISH_TYPE = 'queueport.reconcile.republish';
export const RECONCILE_SCAN_TYPE = 'queueport.reconcile.scan';

export interface ReconcileOptions {
  ledger: Ledger;
  /** Where stuck events are republished: the queue their delivery workers consume. */
  queue: AnyQueue;
  /** Needed to republish inline; with `enqueueScan` the workers load payloads. */
  loadPayload?: PayloadLoader;
  /** Pending rows last updated longer ago than this are stuck. */
  olderThanSeconds: number;
  /** Events per unit: loaded together, then published in one batch. */
  batch: number;
  /** The run never takes longer than this, counted from `startedAt`. */
  budgetMs: number;
  /** Instead of republishing inline, hand the scan to workers as messages on this queue. */
  enqueueScan?: AnyQueue;
  /** Resume after this event id (a scan continuation's cursor). */
  after?: string;
  /** When the budget began, on `now`'s clock (the command's start, so setup counts too). Default: the call. */
  startedAt?: number;
  /** Milliseconds, for the budget; performance.now by default. */
  now?: () => number;
  /** Epoch ms, to compare with the ledger's lease and retry times. Default Date.now. */
  wallClock?: () => number;
  runId?: string;
  /** The most pending rows one run looks at (memory). Default 100000. */
  maxSurvey?: number;
  /** The most ambiguous rows listed. Default 1000; 0 lists none. */
  maxAmbiguous?: number;
  progress?: (line: string) => void;
}

export interface ReconcileResult {
  runId: string;
  mode: 'inline' | 'enqueue';
  budgetMs: number;
  durationMs: number;
  /** Whether the scan reached the end of the pending rows (else more may be stuck than `eligible` says). */
  scanComplete: boolean;
  /** Pending rows older than the bound, held by no live lease, with no retry still scheduled. */
  eligible: string[];
  republished: string[];
  /** Published, but the provider said it absorbed them as repeats: it holds them already. */
  absorbed: string[];
  /** The loader has no such event. */
  missing: string[];
  /** The loaded payload does not match the digest the ledger recorded: never republished. */
  mismatched: string[];
  /** The loader threw, the envelope was refused, or the publish failed. */
  failed: { eventId: string; error: string }[];
  /** Handing work to the workers failed: the ids it carried stay pending, for the next run. */
  handoffErrors: string[];
  /** Eligible, but neither republished nor handed to workers within the budget. */
  pending: string[];
  /** Handed to workers as republish units (`enqueueScan`). */
  enqueued: string[];
  /** The scan continuation's cursor, when one was enqueued (null: from the start). */
  continuation: { after: string | null } | undefined;
  units: number;
  /** The longest inline unit (loads and publish), in ms: what one more unit would have cost. */
  longestUnitMs: number;
  /** Stale rows under a live lease: a worker has them now. */
  leased: number;
  /** Stale rows whose next retry is still due: the queue holds them, delayed. */
  scheduled: number;
  /** Rows flagged ambiguous (any state), for a person: the receiver may have acted twice. */
  ambiguous: LedgerRecord[];
  ambiguousComplete: boolean;
}

/** Part of the budget kept back for the last publish and the report, whatever the budget. */
const RESERVE_FRACTION = 0.05;
const RESERVE_MIN_MS = 20;
const RESERVE_MAX_MS = 5_000;
/** The scan may use this share of the budget; the rest is for republishing. */
const SURVEY_SHARE = 0.3;
/** Handing the scan to workers costs one publish per unit: the scan may take most of the budget. */
const ENQUEUE_SURVEY_SHARE = 0.8;
/** Listing ambiguous rows may run until this share of the budget. */
const AMBIGUOUS_SHARE = 0.1;
const AMBIGUOUS_PAGE = 500;
/** A republish unit's ids stay well inside any provider's message size. */
const MAX_UNIT_ID_BYTES = 128 * 1024;

interface Budget {
  now: () => number;
  deadline: number;
  /** No new work after this: the reserve is kept for the last publish and the report. */
  stopAt: number;
  /** A point `share` of the way through the budget. */
  at(share: number): number;
}

function budgetOf(options: Pick<ReconcileOptions, 'budgetMs' | 'startedAt' | 'now'>): Budget {
  const now = options.now ?? (() => performance.now());
  const start = options.startedAt ?? now();
  const reserve = Math.min(Math.max(options.budgetMs * RESERVE_FRACTION, RESERVE_MIN_MS), RESERVE_MAX_MS);
  const deadline = start + options.budgetMs;
  return { now, deadline, stopAt: deadline - reserve, at: (share) => start + options.budgetMs * share };
}

/**
 * Finds the stuck events (pending rows older than the bound) and republishes them in units, or
 * hands them to workers as queue messages, never past the time budget: the clock is read before
 * every unit, a unit is not begun unless the longest one so far still fits, and payload loads
 * that are not back by the reserve are left pending rather than waited for.
 */
export async function runReconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  checkOptions(options);
  const budget = budgetOf(options);
  const started = options.startedAt ?? budget.now();
  const wallClock = options.wallClock ?? Date.now;
  const progress = options.progress ?? (() => {});
  const result = emptyResult(options.runId ?? randomUUID().slice(0, 8), options);

  // First, and in a small share: a person needs this list whatever becomes of the rest.
  const ambiguous = await listAmbiguous(options.ledger, options.maxAmbiguous ?? 1_000, budget);
  result.ambiguous = ambiguous.records;
  result.ambiguousComplete = ambiguous.complete;

  const survey = await surveyPending(options, budget, wallClock);
  result.scanComplete = survey.complete;
  result.leased = survey.leased;
  result.scheduled = survey.scheduled;
  result.eligible = survey.eligible.map((record) => record.eventId);
  progress(
    `reconcile: ${result.eligible.length} stuck events${survey.complete ? '' : ' so far (the scan was cut short)'}`,
  );

  if (options.enqueueScan) {
    await enqueueUnits(options, options.enqueueScan, survey, budget, result);
  } else {
    await republishRecords(survey.eligible, options, budget, result, progress);
  }
  result.pending = pendingOf(result);
  result.durationMs = Math.round(budget.now() - started);
  return result;
}

export interface ReconcileWorkerOptions {
  ledger: Ledger;
  /** Where the events are republished. */
  queue: AnyQueue;
  /** Where a scan continuation enqueues its units (the queue the work came from). */
  workQueue: AnyQueue;
  loadPayload: PayloadLoader;
  /** One message's budget. Default 60000. */
  budgetMs?: number;
  now?: () => number;
  wallClock?: () => number;
  progress?: (line: string) => void;
}

/**
 * The worker's side of `--enqueue-scan`: handles one `queueport.reconcile.*` envelope. A unit's
 * events are re-read from the ledger first, so one a worker settled since is left alone. Throws
 * for anything else, so the consumer gives the message back instead of dropping it.
 */
export async function handleReconcileMessage(
  envelope: Pick<Envelope, 'type' | 'payload'>,
  options: ReconcileWorkerOptions,
): Promise<ReconcileResult> {
  const work = parseWork(envelope);
  const budgetMs = options.budgetMs ?? 60_000;
  const common = {
    ledger: options.ledger,
    queue: options.queue,
    loadPayload: options.loadPayload,
    budgetMs,
    ...(options.now ? { now: options.now } : {}),
    ...(options.wallClock ? { wallClock: options.wallClock } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
  };
  if (work.kind === 'scan') {
    return runReconcile({
      ...common,
      olderThanSeconds: work.olderThanSeconds,
      batch: work.batch,
      enqueueScan: options.workQueue,
      // Listed for a person by the run that started the scan; a continuation has no one to show them to.
      maxAmbiguous: 0,
      ...(work.after !== null ? { after: work.after } : {}),
    });
  }
  const budget = budgetOf(common);
  const started = budget.now();
  const wallClock = options.wallClock ?? Date.now;
  const result = emptyResult(work.run, { budgetMs });
  const records: LedgerRecord[] = [];
  for (const eventId of work.eventIds) {
    const record = await options.ledger.get(eventId);
    if (record?.state !== 'processing') continue;
    const verdict = classify(record, wallClock());
    if (verdict === 'leased') result.leased++;
    else if (verdict === 'scheduled') result.scheduled++;
    else records.push(record);
  }
  result.scanComplete = true;
  result.eligible = records.map((record) => record.eventId);
  await republishRecords(
    records,
    { ...common, batch: Math.max(1, records.length) },
    budget,
    result,
    () => {},
  );
  result.pending = pendingOf(result);
  result.durationMs = Math.round(budget.now() - started);
  return result;
}

/** What the report says about a run: its budget kept, and every reached event accounted for. */
export function reconcileChecks(result: ReconcileResult, provider?: string): CheckResult[] {
  const withProvider = provider ? { provider } : {};
  const stuck =
    result.missing.length + result.mismatched.length + result.failed.length + result.handoffErrors.length;
  const problems = [
    ...(result.missing.length > 0 ? [`no payload for ${listSome(result.missing, 10)}`] : []),
    ...(result.mismatched.length > 0
      ? [`payload differs from the ledger's digest for ${listSome(result.mismatched, 10)}`]
      : []),
    ...(result.failed.length > 0
      ? [
          `failed: ${listSome(
            result.failed.map((f) => `${f.eventId} (${f.error})`),
            5,
          )}`,
        ]
      : []),
    ...result.handoffErrors.map((error) => `could not hand work to the workers: ${error}`),
  ];
  const handedOver =
    result.mode === 'enqueue'
      ? `${result.enqueued.length} handed to workers in ${result.units} units${result.continuation ? ', the rest of the scan as a continuation' : ''}`
      : `${result.republished.length} republished${result.absorbed.length ? `, ${result.absorbed.length} absorbed by the provider` : ''}`;
  return [
    {
      id: 'reconcile.budget',
      title: 'the run kept to its time budget',
      ...withProvider,
      status: result.durationMs <= result.budgetMs ? 'passed' : 'failed',
      durationMs: result.durationMs,
      detail:
        `${result.durationMs} ms of ${result.budgetMs} ms` +
        (result.longestUnitMs > 0 ? ` (longest unit ${result.longestUnitMs} ms)` : '') +
        (result.pending.length > 0 ? `; ${result.pending.length} left pending for the next run` : '') +
        (result.scanComplete ? '' : '; the scan did not reach the end'),
    },
    {
      id: 'reconcile.republish',
      title: 'every stuck event reached was republished',
      ...withProvider,
      status: stuck > 0 ? 'failed' : 'passed',
      durationMs: result.durationMs,
      detail:
        stuck > 0
          ? `${problems.join('; ')}; ${handedOver}`
          : `${result.eligible.length} stuck; ${handedOver}`,
    },
  ];
}

function checkOptions(options: ReconcileOptions): void {
  const whole = (value: number, min: number) => Number.isSafeInteger(value) && value >= min;
  if (!whole(options.batch, 1) || options.batch > MAX_SCAN_LIMIT) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `reconcile: batch must be a whole number from 1 to ${MAX_SCAN_LIMIT}`,
    );
  }
  if (!whole(options.budgetMs, 1))
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: budgetMs must be ≥ 1');
  if (!whole(options.olderThanSeconds, 0)) {
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: olderThanSeconds must be a whole number ≥ 0');
  }
  if (options.maxSurvey !== undefined && !whole(options.maxSurvey, 1)) {
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: maxSurvey must be a whole number ≥ 1');
  }
  if (!options.enqueueScan && !options.loadPayload) {
    throw new QueueError('INVALID_ARGUMENT', 'reconcile: republishing inline needs loadPayload');
  }
}

function emptyResult(
  runId: string,
  options: Pick<ReconcileOptions, 'budgetMs' | 'enqueueScan'>,
): ReconcileResult {
  return {
    runId,
    mode: options.enqueueScan ? 'enqueue' : 'inline',
    budgetMs: options.budgetMs,
    durationMs: 0,
    scanComplete: false,
    eligible: [],
    republished: [],
    absorbed: [],
    missing: [],
    mismatched: [],
    failed: [],
    handoffErrors: [],
    pending: [],
    enqueued: [],
    continuation: undefined,
    units: 0,
    longestUnitMs: 0,
    leased: 0,
    scheduled: 0,
    ambiguous: [],
    ambiguousComplete: true,
  };
}

function pendingOf(result: ReconcileResult): string[] {
  const accounted = new Set([
    ...result.republished,
    ...result.absorbed,
    ...result.missing,
    ...result.mismatched,
    ...result.failed.map((f) => f.eventId),
    ...result.enqueued,
  ]);
  return result.eligible.filter((id) => !accounted.has(id));
}

type Verdict = 'eligible' | 'leased' | 'scheduled';

function classify(record: LedgerRecord, wallNow: number): Verdict {
  if (record.leaseOwner !== null && record.leaseUntil !== null && record.leaseUntil > wallNow)
    return 'leased';
  // Released with a retry still to come: the queue holds the message, delayed until then.
  if (record.retryAt !== null && record.retryAt > wallNow) return 'scheduled';
  return 'eligible';
}

interface Survey {
  eligible: LedgerRecord[];
  leased: number;
  scheduled: number;
  complete: boolean;
  /** The last row the scan read: where a continuation carries on. */
  cursor: string | undefined;
}

/** The stale rows, page by page (no transaction across pages), within its share of the budget. */
async function surveyPending(
  options: ReconcileOptions,
  budget: Budget,
  wallClock: () => number,
): Promise<Survey> {
  const survey: Survey = { eligible: [], leased: 0, scheduled: 0, complete: false, cursor: options.after };
  const maxRows = options.maxSurvey ?? 100_000;
  const page = Math.min(MAX_SCAN_LIMIT, maxRows, Math.max(options.batch, 1_000));
  const share = options.enqueueScan ? ENQUEUE_SURVEY_SHARE : SURVEY_SHARE;
  const until = Math.min(budget.at(share), budget.stopAt);
  while (survey.eligible.length < maxRows && budget.now() < until) {
    const rows = await options.ledger.scanPending({
      olderThanSeconds: options.olderThanSeconds,
      limit: page,
      ...(survey.cursor !== undefined ? { after: survey.cursor } : {}),
    });
    const wallNow = wallClock();
    for (const record of rows) {
      const verdict = classify(record, wallNow);
      if (verdict === 'leased') survey.leased++;
      else if (verdict === 'scheduled') survey.scheduled++;
      else survey.eligible.push(record);
    }
    if (rows.length > 0) survey.cursor = rows[rows.length - 1]!.eventId;
    if (rows.length < page) {
      survey.complete = true;
      break;
    }
  }
  return survey;
}

async function listAmbiguous(
  ledger: Ledger,
  max: number,
  budget: Budget,
): Promise<{ records: LedgerRecord[]; complete: boolean }> {
  const records: LedgerRecord[] = [];
  if (max <= 0) return { records, complete: true };
  let after: string | undefined;
  const until = Math.min(budget.at(AMBIGUOUS_SHARE), budget.stopAt);
  while (records.length < max && budget.now() < until) {
    const limit = Math.min(AMBIGUOUS_PAGE, max - records.length);
    const rows = await ledger.scanAmbiguous({ limit, ...(after !== undefined ? { after } : {}) });
    records.push(...rows);
    if (rows.length < limit) return { records, complete: true };
    after = rows[rows.length - 1]!.eventId;
  }
  return { records, complete: false };
}

type Loaded =
  | { kind: 'ready'; input: PublishInput }
  | { kind: 'missing' }
  | { kind: 'mismatched' }
  | { kind: 'failed'; error: string }
  | { kind: 'late' };

/** Inline: units of `batch`, each loaded together and published in one batch, while the budget lasts. */
async function republishRecords(
  records: readonly LedgerRecord[],
  options: Pick<ReconcileOptions, 'queue' | 'loadPayload' | 'batch'>,
  budget: Budget,
  result: ReconcileResult,
  progress: (line: string) => void,
): Promise<void> {
  const load = options.loadPayload!;
  let longestUnit = result.longestUnitMs;
  let longestPublish = 0;
  for (let index = 0; index < records.length; index += options.batch) {
    const unitStart = budget.now();
    if (unitStart + longestUnit > budget.stopAt) return;
    const unit = records.slice(index, index + options.batch);
    const loaded = await loadWithin(unit, load, budget.stopAt - longestPublish - budget.now());
    const ready: { record: LedgerRecord; input: PublishInput }[] = [];
    let late = false;
    unit.forEach((record, i) => {
      const outcome = loaded[i]!;
      if (outcome.kind === 'ready') ready.push({ record, input: outcome.input });
      else if (outcome.kind === 'missing') result.missing.push(record.eventId);
      else if (outcome.kind === 'mismatched') result.mismatched.push(record.eventId);
      else if (outcome.kind === 'failed')
        result.failed.push({ eventId: record.eventId, error: outcome.error });
      else late = true;
    });
    const publishStart = budget.now();
    await publishReady(options.queue, ready, budget, result);
    longestPublish = Math.max(longestPublish, budget.now() - publishStart);
    longestUnit = Math.max(longestUnit, budget.now() - unitStart);
    result.longestUnitMs = Math.round(longestUnit);
    progress(
      `reconcile: ${result.republished.length + result.absorbed.length} of ${records.length} republished`,
    );
    // Loads still out when the budget's reserve began: whatever comes after would not fit either.
    if (late) return;
  }
}

/** Loads a unit's payloads at once; those not back within `ms` are `late` (left running, ignored). */
async function loadWithin(unit: readonly LedgerRecord[], load: PayloadLoader, ms: number): Promise<Loaded[]> {
  if (ms <= 0) return unit.map(() => ({ kind: 'late' }));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Loaded>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'late' }), ms);
  });
  try {
    return await Promise.all(
      unit.map((record) =>
        Promise.race([
          Promise.resolve()
            .then(() => load(record.eventId))
            .then(
              (loaded) => toInput(record, loaded),
              (error: unknown): Loaded => ({
                kind: 'failed',
                error: `the payload loader threw: ${messageOf(error)}`,
              }),
            ),
          late,
        ]),
      ),
    );
  } finally {
    clearTimeout(timer);
  }
}

function toInput(record: LedgerRecord, loaded: LoadedPayload | undefined): Loaded {
  if (loaded === undefined || loaded === null) return { kind: 'missing' };
  if (typeof loaded !== 'object' || typeof loaded.type !== 'string' || !('payload' in loaded)) {
    return { kind: 'failed', error: 'the payload loader returned no { type, payload }' };
  }
  try {
    // The worker would refuse a changed payload under the same id (IDEMPOTENCY_CONFLICT): a
    // person must see it here, and it must not reach the queue.
    if (payloadDigest(loaded.payload) !== record.payloadSha256) return { kind: 'mismatched' };
    const envelope = {
      event_id: record.eventId,
      type: loaded.type,
      payload: loaded.payload,
      ...(loaded.occurred_at !== undefined ? { occurred_at: loaded.occurred_at } : {}),
    };
    // Refused here, one by one, rather than failing the whole unit's batch at publish.
    prepareEnvelope(envelope);
    return { kind: 'ready', input: { envelope } };
  } catch (error) {
    return { kind: 'failed', error: messageOf(error) };
  }
}

/**
 * One batch; if it fails, each on its own (an entry the batch did enqueue is absorbed by the
 * provider's dedupe or, failing that, by the ledger), so one bad event cannot hold up the rest.
 */
async function publishReady(
  queue: AnyQueue,
  ready: readonly { record: LedgerRecord; input: PublishInput }[],
  budget: Budget,
  result: ReconcileResult,
): Promise<void> {
  if (ready.length === 0) return;
  const note = (eventId: string, duplicate: boolean): void => {
    (duplicate ? result.absorbed : result.republished).push(eventId);
  };
  try {
    const receipts = await queue.publishBatch(ready.map((entry) => entry.input));
    for (const [i, receipt] of receipts.entries()) note(ready[i]!.record.eventId, receipt.duplicate);
    return;
  } catch {
    // Isolated below.
  }
  for (const { record, input } of ready) {
    // Past the deadline itself, not the reserve: the unit was begun in time, and leaving it half
    // published only means the rest is found again by the next run.
    if (budget.now() >= budget.deadline) return;
    try {
      note(record.eventId, (await queue.publish(input)).duplicate);
    } catch (error) {
      result.failed.push({ eventId: record.eventId, error: messageOf(error) });
    }
  }
}

/** `--enqueue-scan`: units of ids for the workers, then a continuation if the scan was cut short. */
async function enqueueUnits(
  options: ReconcileOptions,
  workQueue: AnyQueue,
  survey: Survey,
  budget: Budget,
  result: ReconcileResult,
): Promise<void> {
  const units = unitsOf(
    survey.eligible.map((record) => record.eventId),
    options.batch,
  );
  let lastEnqueued: string | undefined;
  let allEnqueued = true;
  for (const eventIds of units) {
    if (budget.now() > budget.stopAt) {
      allEnqueued = false;
      break;
    }
    const unit: RepublishUnit = {
      v: 1,
      kind: 'republish',
      run: result.runId,
      unit: result.units + 1,
      eventIds,
    };
    try {
      await workQueue.publish({
        envelope: {
          event_id: `queueport-reconcile:${result.runId}:unit:${unit.unit}`,
          type: RECONCILE_REPUBLISH_TYPE,
          payload: unit as unknown as JsonValue,
        },
      });
    } catch (error) {
      // The Queue has retried already: the provider is not taking work now, so stop here.
      result.handoffErrors.push(`unit ${unit.unit}: ${messageOf(error)}`);
      allEnqueued = false;
      break;
    }
    result.units++;
    result.enqueued.push(...eventIds);
    lastEnqueued = eventIds[eventIds.length - 1];
  }
  if (allEnqueued && survey.complete) return;
  // Everything after the last id handed over is the continuation's: nothing is skipped.
  const after = allEnqueued ? (survey.cursor ?? null) : (lastEnqueued ?? options.after ?? null);
  const continuation: ScanContinuation = {
    v: 1,
    kind: 'scan',
    run: result.runId,
    olderThanSeconds: options.olderThanSeconds,
    batch: options.batch,
    after,
  };
  // Sent from the reserve: this one publish is what keeps the rest of the scan from being lost.
  try {
    await workQueue.publish({
      envelope: {
        event_id: `queueport-reconcile:${result.runId}:scan`,
        type: RECONCILE_SCAN_TYPE,
        payload: continuation as unknown as JsonValue,
      },
    });
    result.continuation = { after };
  } catch (error) {
    result.handoffErrors.push(`the scan continuation: ${messageOf(error)}`);
  }
}

function unitsOf(eventIds: readonly string[], batch: number): string[][] {
  const units: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const id of eventIds) {
    const size = Buffer.byteLength(id, 'utf8') + 3;
    if (current.length > 0 && (current.length >= batch || bytes + size > MAX_UNIT_ID_BYTES)) {
      units.push(current);
      current = [];
      bytes = 0;
    }
    current.push(id);
    bytes += size;
  }
  if (current.length > 0) units.push(current);
  return units;
}

function parseWork(envelope: Pick<Envelope, 'type' | 'payload'>): ReconcileWork {
  const payload = envelope.payload as Record<string, unknown> | undefined;
  const bad = (why: string) =>
    new QueueError('INVALID_ARGUMENT', `not a reconcile work message: ${why}`, {
      details: { type: envelope.type },
    });
  if (!payload || typeof payload !== 'object' || payload.v !== 1)
    throw bad('its payload is no v1 ReconcileWork');
  if (envelope.type === RECONCILE_REPUBLISH_TYPE && payload.kind === 'republish') {
    const ids = payload.eventIds;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && id !== '')) {
      throw bad('eventIds must be a list of event ids');
    }
    return payload as unknown as RepublishUnit;
  }
  if (envelope.type === RECONCILE_SCAN_TYPE && payload.kind === 'scan') {
    const whole = (value: unknown, min: number) =>
      typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
    if (!whole(payload.olderThanSeconds, 0) || !whole(payload.batch, 1)) {
      throw bad('olderThanSeconds and batch must be whole numbers');
    }
    if (payload.after !== null && typeof payload.after !== 'string')
      throw bad('after must be an event id or null');
    return payload as unknown as ScanContinuation;
  }
  throw bad(`type ${envelope.type} with kind ${String(payload.kind)}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
