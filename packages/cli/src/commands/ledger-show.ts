import type { LedgerRecord } from '@queueport/ledger';
import { parseCommandArgs } from '../args';
import type { Command } from '../command-context';
import { requireConfig } from '../config/require-config';
import { isShowableName } from '../config/secret-names';
import { UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';

const USAGE = 'usage: queueport ledger show <event_id>';

const HELP = `${USAGE}

Shows the ledger's row for one event id: its state, attempts, lease, last outcome, whether an
attempt ended with no recorded outcome (ambiguous), and its times. The ledger is the
configuration's ("ledger": { "sqlite": … } or { "postgresUrlEnv": … }); it never stores payloads.

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
    try {
      await builder.measure({ id: 'ledger.show', title: `the ledger row of ${eventId}` }, async () => {
        record = await ledger.get(eventId);
        if (!record) throw new Error(`not found: the ledger has no row for ${eventId}`);
        return `${record.state}, ${record.attempts} attempt(s)${record.ambiguous ? ', ambiguous' : ''}`;
      });
    } finally {
      await ledger.close();
    }
    return builder.build(record ? { rows: [rowOf(record)] } : {});
  },
};

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
