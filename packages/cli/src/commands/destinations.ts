import { type DestinationState, type DestinationStateStore, destinationStoreOf } from '@queueport/ledger';
import { DEFAULT_RESUME_MAX_WAIT_MS, type ResumeResult, resumeDestination } from '@queueport/webhook';
import { intOption, parseCommandArgs } from '../args';
import type { Command, CommandContext } from '../command-context';
import { requireConfig } from '../config/require-config';
import { isShowableName } from '../config/secret-names';
import { UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import type { CommandReport } from '../report/report-types';
import { openForCheck } from './open-for-check';

const DEFAULT_LIST_LIMIT = 1_000;
const DEFAULT_BATCH = 100;

const USAGE = `usage: queueport destinations list [--limit N]
       queueport destinations disable <id> [--reason R]
       queueport destinations enable <id> [--provider X] [--batch N] [--max-wait-ms W]`;

const HELP = `${USAGE}

The destinations the ledger keeps state for: a destination is disabled by a worker (its sends
failed past its disableAfter bound, or it answered 410) or by hand, and its events are parked in
the ledger meanwhile: not sent, not failed, not lost. The ledger is the configuration's; workers
on it see a change within their destinationRefreshMs.

  list     every destination the ledger has seen: enabled or disabled, why and since when, and
           how many events are parked for it (parked events on an enabled destination: a resume
           did not finish; enable it again)
  disable  disables <id> now (--reason, default "disabled by hand"); the ledger does not know
           your destinations' ids, so check the spelling
  enable   enables <id> and resumes its parked events: republished to X's queue (the one its
           delivery workers consume) in due order, N at a time. An event parked within the
           queue's dedupe window waits for it to pass, up to W ms (default ${DEFAULT_RESUME_MAX_WAIT_MS});
           what is still parked then is reported, and enabling again carries on

Options:
  --provider <name>   enable: where the events go (required unless one provider is configured)
  --batch <n>         enable: events per page (default ${DEFAULT_BATCH}, at most 1000)
  --max-wait-ms <w>   enable: the longest wait for the dedupe window (0: no wait)
  --reason <text>     disable: why, for people (never a URL or a secret)
  --limit <n>         list: at most this many (default ${DEFAULT_LIST_LIMIT})

Exit status: 0 done, 1 a check failed (enable: events are still parked), 2 a usage or
configuration error.
`;

const FLAGS = {
  provider: { type: 'string' },
  batch: { type: 'string' },
  'max-wait-ms': { type: 'string' },
  reason: { type: 'string' },
  limit: { type: 'string' },
} as const;

export const destinationsCommand: Command = {
  name: 'destinations',
  summary: 'Lists, disables or enables (and resumes) webhook destinations in the ledger.',
  help: HELP,
  async run(argv, context) {
    const { values, positionals } = parseCommandArgs(argv, FLAGS, USAGE, { positionals: 2 });
    const [action, id] = positionals;
    if (action !== 'list' && action !== 'enable' && action !== 'disable') {
      throw new UsageError(
        `${action ? `unknown destinations command${isShowableName(action) ? ` "${action}"` : ' (not shown)'}; it takes list, enable or disable` : 'destinations takes list, enable or disable'}\n\n${USAGE}`,
      );
    }
    const only = (flag: keyof typeof FLAGS, actions: string[]) => {
      if (values[flag] !== undefined && !actions.includes(action)) {
        throw new UsageError(`--${flag} goes with destinations ${actions.join(' or ')}\n\n${USAGE}`);
      }
    };
    only('provider', ['enable']);
    only('batch', ['enable']);
    only('max-wait-ms', ['enable']);
    only('reason', ['disable']);
    only('limit', ['list']);
    if (action === 'list') {
      if (id !== undefined) throw new UsageError(`destinations list takes no id\n\n${USAGE}`);
      return list(context, intOption(values.limit, '--limit', USAGE) ?? DEFAULT_LIST_LIMIT);
    }
    if (!id) throw new UsageError(`destinations ${action} takes a destination id\n\n${USAGE}`);
    if (action === 'disable') return disable(context, id, values.reason ?? 'disabled by hand');
    const batch = intOption(values.batch, '--batch', USAGE) ?? DEFAULT_BATCH;
    if (batch > 1000) throw new UsageError(`--batch takes at most 1000\n\n${USAGE}`);
    const maxWaitMs =
      intOption(values['max-wait-ms'], '--max-wait-ms', USAGE, 0) ?? DEFAULT_RESUME_MAX_WAIT_MS;
    return enable(context, id, { provider: values.provider, batch, maxWaitMs });
  },
};

/** The configuration's ledger with its destination state, closed after `work`. */
async function withStore<T>(
  context: CommandContext,
  work: (store: DestinationStateStore) => Promise<T>,
): Promise<T> {
  const ledger = await context.openLedger();
  try {
    const store = destinationStoreOf(ledger);
    if (!store) throw new Error('this ledger keeps no destination state');
    return await work(store);
  } finally {
    await ledger.close();
  }
}

async function list(context: CommandContext, limit: number): Promise<CommandReport> {
  const builder = new ReportBuilder('destinations', context.io);
  await requireConfig(context, { ledger: true });
  let states: DestinationState[] = [];
  await builder.measure({ id: 'destinations.list', title: 'the destinations the ledger keeps' }, () =>
    withStore(context, async (store) => {
      let after: string | undefined;
      while (states.length < limit) {
        const want = Math.min(1_000, limit - states.length);
        const page = await store.list({ limit: want, ...(after ? { after } : {}) });
        states = states.concat(page);
        if (page.length < want) break;
        after = page[page.length - 1]!.destinationId;
      }
      const disabled = states.filter((state) => state.disabled).length;
      return `${states.length} destination(s), ${disabled} disabled`;
    }),
  );
  return builder.build({
    summary: {
      destinations: states.length,
      disabled: states.filter((state) => state.disabled).length,
      parked: states.reduce((total, state) => total + state.parked, 0),
    },
    notes: unfinishedNotes(states),
    rows: states.map(rowOf),
  });
}

async function disable(context: CommandContext, id: string, reason: string): Promise<CommandReport> {
  const builder = new ReportBuilder('destinations', context.io);
  await requireConfig(context, { ledger: true });
  let state: DestinationState | undefined;
  await builder.measure({ id: 'destinations.disable', title: `disable ${id}` }, () =>
    withStore(context, async (store) => {
      const change = await store.disable({ destinationId: id, reason });
      state = change.state;
      return change.changed ? 'disabled: its events are parked from now on' : 'already disabled';
    }),
  );
  return builder.build({
    ...(state ? { rows: [rowOf(state)] } : {}),
    notes: [
      'Workers see it within their destinationRefreshMs (1 s by default); a send already under way finishes.',
    ],
  });
}

async function enable(
  context: CommandContext,
  id: string,
  flags: { provider: string | undefined; batch: number; maxWaitMs: number },
): Promise<CommandReport> {
  const builder = new ReportBuilder('destinations', context.io);
  const configured = Object.keys((await context.config()).config.providers);
  const provider = flags.provider ?? (configured.length === 1 ? configured[0] : undefined);
  if (!provider) {
    throw new UsageError(
      `destinations enable needs --provider: the queue its parked events go back to (configured: ${configured.join(', ') || 'none'})\n\n${USAGE}`,
    );
  }
  await requireConfig(context, { ledger: true, providers: [{ name: provider, flag: '--provider' }] });
  let result: ResumeResult | undefined;
  const opened = await openForCheck(context, builder, provider);
  if (!opened) return builder.build();
  try {
    await builder.measure(
      { id: 'destinations.enable', title: `enable ${id} and resume its parked events`, provider },
      () =>
        withStore(context, async (store) => {
          result = await resumeDestination({
            store,
            queue: opened.queue,
            destinationId: id,
            batchSize: flags.batch,
            maxWaitMs: flags.maxWaitMs,
            ...(context.signal ? { signal: context.signal } : {}),
            progress: (line) => context.progress(line),
          });
          const done = `${result.enabled ? 'enabled' : 'was enabled'}; ${result.republished} republished, ${result.settled} settled already`;
          if (!result.complete) throw new Error(`${done}; ${result.remaining} still parked`);
          return done;
        }),
    );
  } finally {
    await opened.close();
  }
  return builder.build({
    ...(result
      ? {
          summary: {
            destination: id,
            provider,
            republished: result.republished,
            'settled already': result.settled,
            'still parked': result.remaining,
            failed: result.failed.length,
          },
          notes: resumeNotes(result),
        }
      : {}),
  });
}

function resumeNotes(result: ResumeResult): string[] {
  const notes: string[] = [];
  if (result.resumableAt !== undefined) {
    notes.push(
      `Events parked within the queue's dedupe window are still parked: a republish would be absorbed. Run enable again after ${new Date(result.resumableAt).toISOString()}, or with a longer --max-wait-ms.`,
    );
  }
  for (const { eventId, error } of result.failed.slice(0, 5)) {
    notes.push(`Not republished, still parked: ${eventId}: ${error}`);
  }
  return notes;
}

function unfinishedNotes(states: readonly DestinationState[]): string[] {
  const unfinished = states.filter((state) => !state.disabled && state.parked > 0);
  return unfinished.length === 0
    ? []
    : [
        `Enabled with events still parked (a resume did not finish): ${unfinished.map((s) => s.destinationId).join(', ')}. Run \`queueport destinations enable <id>\` again.`,
      ];
}

function rowOf(state: DestinationState): Record<string, string | number | boolean | null> {
  return {
    destination: state.destinationId,
    state: state.disabled ? 'disabled' : 'enabled',
    reason: state.reason,
    disabledAt: iso(state.disabledAt),
    enabledAt: iso(state.enabledAt),
    parked: state.parked,
  };
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
