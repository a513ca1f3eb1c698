import { type AttemptRecord, hasAttemptLog, type LedgerRecord } from '@queueport/ledger';
import { parseCommandArgs } from '../args';
import type { Command } from '../command-context';
import { requireConfig } from '../config/require-config';
import { isShowableName } from '../config/secret-names';
import { UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';

const USAGE = 'usage: queueport ledger show <event_id>';
/** A retry schedule gives up long before this; more is said in a note, not listed. */
const MAX_SHOWN_ATTEMPTS = 1000;

const HELP = `${USAGE}

Shows the ledger's row for one event id: its state, attempts, lease, last outcome, whether an
attempt ended with no recorded outcome (ambiguous), and its times. The ledger is the
configuration's ("ledger": { "sqlite": … } or { "postgresUrlEnv": … }); it never stores payloads.

Then its attempt log, one line per recorded attempt by claim number: when it started, how long
it took, how it ended, the HTTP status, the error class (http, timeout, connect, tls, …),
whether it was ambiguous, the destination id and the start of the response (redacted before it
was stored; cut to one line here, whole in --json under "tables.attempts"). A claim whose lease
lapsed recorded no attempt, so its number is missing. The first ${MAX_SHOWN_ATTEMPTS} attempts are shown.

Exit status: 0 the row was found, 1 it was not, 2 a usage or configuration error.
`;

export const ledgerCommand: Command = {
  name: 'ledger',
  summary: "Shows the ledger's row for an event id.",
  help: HELP,
  async run(argv, context) {
    const { positionals } = parseCommandArgs(argv, {}, USAGE, { positionals: 2 });
    const [action, eventId] = positionals;
    if (action !== 'show') {
      throw new UsageError(
        `${action ? `unknown ledger command${isShowableName(action) ? ` "${action}"` : ' (not shown)'}; it takes show` : 'ledger takes a command'}\n\n${USAGE}`,
      );
    }
    if (!eventId) throw new UsageError(`ledger show takes an event id\n\n${USAGE}`);

    const builder = new ReportBuilder('ledger', context.io);
    await requireConfig(context, { ledger: true });
    const ledger = await context.openLedger();
    let record: LedgerRecord | undefined;
    let attempts: AttemptRecord[] | undefined;
    const notes: string[] = [];
    try {
      await builder.measure({ id: 'ledger.show', title: `the ledger row of ${eventId}` }, async () => {
        record = await ledger.get(eventId);
        if (!record) throw new Error(`not found: the ledger has no row for ${eventId}`);
        if (hasAttemptLog(ledger)) {
          // One more than shown, to know whether there are more.
          attempts = await ledger.listAttempts({ eventId, limit: MAX_SHOWN_ATTEMPTS + 1 });
          if (attempts.length > MAX_SHOWN_ATTEMPTS) {
            attempts = attempts.slice(0, MAX_SHOWN_ATTEMPTS);
            notes.push(`only the first ${MAX_SHOWN_ATTEMPTS} attempts are shown`);
          }
        } else notes.push('this ledger keeps no attempt log');
        return `${record.state}, ${record.attempts} attempt(s)${record.ambiguous ? ', ambiguous' : ''}`;
      });
    } finally {
      await ledger.close();
    }
    if (!record) return builder.build({});
    return builder.build({
      rows: [rowOf(record)],
      ...(attempts ? { tables: { attempts: attempts.map(attemptRowOf) } } : {}),
      notes,
    });
  },
};

function attemptRowOf(attempt: AttemptRecord): Record<string, string | number | boolean | null> {
  return {
    attempt: attempt.attempt,
    startedAt: iso(attempt.startedAt),
    durationMs: attempt.durationMs,
    outcome: attempt.outcome,
    statusCode: attempt.statusCode,
    errorClass: attempt.errorClass,
    ambiguous: attempt.ambiguous,
    destinationId: attempt.destinationId,
    response: attempt.responseSample?.body ?? null,
    responseTruncated: attempt.responseSample?.truncated ?? null,
  };
}

function rowOf(record: LedgerRecord): Record<string, string | number | boolean | null> {
  return {
    eventId: record.eventId,
    state: record.state,
    attempts: record.attempts,
    ambiguous: record.ambiguous,
    lastOutcome: record.lastOutcome,
    leaseOwner: record.leaseOwner,
    leaseUntil: iso(record.leaseUntil),
    retryAt: iso(record.retryAt),
    deliveredAt: iso(record.deliveredAt),
    createdAt: iso(record.createdAt),
    updatedAt: iso(record.updatedAt),
    payloadSha256: record.payloadSha256,
  };
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
