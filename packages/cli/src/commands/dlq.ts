import type { DeadLetterRecord } from '@queueport/core';
import { intOption, parseCommandArgs, requireOption } from '../args';
import type { Command } from '../command-context';
import { requireConfig } from '../config/require-config';
import { isShowableName } from '../config/secret-names';
import { UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import { openForCheck } from './open-for-check';

const DEFAULT_LIMIT = 10;

const USAGE = 'usage: queueport dlq list|redrive --provider <name> [--limit N]';

const HELP = `${USAGE}

The dead letters of a configured provider, through its adapter's admin surface.

  list     the oldest dead letters: message id, event id and type, receive count, reason, when
  redrive  moves up to --limit dead letters back to the queue, oldest first

Options:
  --provider <name>  the provider, by its name in the configuration (required)
  --limit <n>        at most this many (default ${DEFAULT_LIMIT})

Exit status: 0 done, 1 the provider could not be opened or has no such admin call, 2 a usage or
configuration error.
`;

export const dlqCommand: Command = {
  name: 'dlq',
  summary: "Lists or redrives a provider's dead letters through its admin surface.",
  help: HELP,
  async run(argv, context) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { provider: { type: 'string' }, limit: { type: 'string' } },
      USAGE,
      { positionals: 1 },
    );
    const [action] = positionals;
    if (action !== 'list' && action !== 'redrive') {
      throw new UsageError(
        `${action ? `unknown dlq command${isShowableName(action) ? ` "${action}"` : ' (not shown)'}; it takes list or redrive` : 'dlq takes list or redrive'}\n\n${USAGE}`,
      );
    }
    const name = requireOption(values.provider, '--provider', USAGE);
    const limit = intOption(values.limit, '--limit', USAGE) ?? DEFAULT_LIMIT;

    const builder = new ReportBuilder('dlq', context.io);
    await requireConfig(context, { providers: [{ name, flag: '--provider' }] });
    const provider = await openForCheck(context, builder, name);
    if (!provider) return builder.build();
    const queueUrl = (await context.config()).config.providers[name]!.url;
    const { admin } = provider;
    try {
      if (action === 'list') {
        let records: DeadLetterRecord[] = [];
        await builder.measure(
          { id: 'dlq.list', title: `list the dead letters of ${name}`, provider: name },
          async () => {
            if (!admin?.listDeadLetters)
              throw new Error(`${provider.definition.packageName} cannot list dead letters`);
            records = await admin.listDeadLetters(queueUrl, { limit });
            return `${records.length} dead letter(s)${records.length === limit ? ` (at most ${limit} shown)` : ''}`;
          },
        );
        return builder.build({
          summary: { provider: name, listed: records.length },
          rows: records.map(rowOf),
        });
      }
      let moved = 0;
      await builder.measure(
        { id: 'dlq.redrive', title: `redrive the dead letters of ${name}`, provider: name },
        async () => {
          if (!admin?.redriveDeadLetters)
            throw new Error(`${provider.definition.packageName} cannot redrive dead letters`);
          moved = await admin.redriveDeadLetters(queueUrl, { limit });
          return `${moved} moved back`;
        },
      );
      return builder.build({ summary: { provider: name, redriven: moved } });
    } finally {
      await provider.close();
    }
  },
};

function rowOf(record: DeadLetterRecord): Record<string, string | number | boolean | null> {
  return {
    messageId: record.messageId,
    eventId: record.eventId ?? null,
    type: typeOf(record.body),
    receiveCount: record.receiveCount,
    reason: record.reason ?? null,
    at: record.at === undefined ? null : new Date(record.at).toISOString(),
  };
}

/** The envelope's type, for people scanning the list; the body itself stays with the provider. */
function typeOf(body: string): string | null {
  try {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}
