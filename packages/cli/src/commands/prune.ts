import { stat } from 'node:fs/promises';
import path from 'node:path';
import { FilePayloadStore, isQueueError } from '@queueport/core';
import {
  applyRetention,
  checkRetentionPolicy,
  DEFAULT_MESSAGE_LIFETIME_SECONDS,
  type RetentionPolicy,
} from '@queueport/ledger';
import { ageOption, formatAge } from '../age-option';
import { parseCommandArgs, requireOption } from '../args';
import type { Command, CommandContext } from '../command-context';
import { requireConfig } from '../config/require-config';
import { UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import { PruneStepChecks } from './prune-step-checks';

const USAGE = `usage: queueport prune --history <age> [--attempts <age>] [--message-lifetime <age>]
                       [--payloads <age> --payload-dir <dir>]`;

const HELP = `${USAGE}

Applies one retention policy to the configured ledger and a file payload store, in this order:

  --attempts <age>          deletes attempts that started longer ago, whatever their event's
                            state; at most --history, which is the default
  --history <age>           deletes delivered and failed ledger rows settled longer ago, with
                            their attempts; at least --message-lifetime
  --payloads <age>          deletes payloads in --payload-dir (a FilePayloadStore's root) last
                            written longer ago; at least --message-lifetime. Left out: none
  --message-lifetime <age>  the longest a message can stay in your queue after its publish: its
                            retention, the longest delay, a stay in the dead letters before a
                            redrive (default ${formatAge(DEFAULT_MESSAGE_LIFETIME_SECONDS)}: the portable 7d delay and 14d retention)

An age is a whole number and s, m, h or d: 30d, 12h. The history is the ledger's memory of what
was delivered: pruned before the last copy of a message can arrive, that copy is delivered again.
A payload pruned while a message still references it fails that message closed. So both are
refused below the message lifetime. Events not yet settled (pending, leased, parked for a
disabled destination) are never deleted, whatever their age. Payloads in S3: applyRetention of
@queueport/ledger with an S3PayloadStore, or a lifecycle rule on the bucket.

Progress goes to stderr, a line per step. Exit status: 0 done, 1 a step failed (what ran before
it stays done: run the command again to carry on), 2 a usage or configuration error (nothing
was deleted).
`;

const FLAGS = {
  history: { type: 'string' },
  attempts: { type: 'string' },
  payloads: { type: 'string' },
  'payload-dir': { type: 'string' },
  'message-lifetime': { type: 'string' },
} as const;

/** The policy's fields as this command's flags, so a refusal names what the person typed. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  historySeconds: '--history',
  attemptsSeconds: '--attempts',
  payloadsSeconds: '--payloads',
  messageLifetimeSeconds: '--message-lifetime',
};

export const pruneCommand: Command = {
  name: 'prune',
  summary: 'Deletes ledger history, attempts and stored payloads past their retention ages.',
  help: HELP,
  async run(argv, context) {
    const { values } = parseCommandArgs(argv, FLAGS, USAGE);
    const policy = policyOf(values);
    const payloadDir = values['payload-dir'];
    if ((policy.payloadsSeconds === undefined) !== (payloadDir === undefined)) {
      throw new UsageError(`--payloads and --payload-dir go together\n\n${USAGE}`);
    }
    const payloadStore = payloadDir === undefined ? undefined : await fileStoreAt(payloadDir, context);

    const builder = new ReportBuilder('prune', context.io);
    await requireConfig(context, { ledger: true });
    const ledger = await context.openLedger();
    const steps = new PruneStepChecks(
      builder,
      context,
      payloadStore ? ['attempts', 'history', 'payloads'] : ['attempts', 'history'],
    );
    try {
      await applyRetention(policy, {
        ledger,
        ...(payloadStore ? { payloadStore } : {}),
        onProgress: (progress) => steps.on(progress),
        ...(context.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      steps.failed(error);
    } finally {
      await ledger.close();
    }
    const notes = [
      'Events not yet settled (pending, leased, parked for a disabled destination) are never deleted by age.',
    ];
    if (!payloadStore) notes.push('No stored payload was deleted: give --payloads with --payload-dir.');
    const { attempts, history, payloads } = steps.deleted;
    return builder.build({ summary: { historyRows: history, attempts, payloads }, notes });
  },
};

function policyOf(values: { [K in keyof typeof FLAGS]?: string }): RetentionPolicy {
  const age = (flag: keyof typeof FLAGS) => ageOption(values[flag], `--${flag}`, USAGE);
  requireOption(values.history, '--history', USAGE);
  const historySeconds = age('history')!;
  const attemptsSeconds = age('attempts');
  const payloadsSeconds = age('payloads');
  const messageLifetimeSeconds = age('message-lifetime');
  const policy: RetentionPolicy = {
    historySeconds,
    ...(attemptsSeconds === undefined ? {} : { attemptsSeconds }),
    ...(payloadsSeconds === undefined ? {} : { payloadsSeconds }),
    ...(messageLifetimeSeconds === undefined ? {} : { messageLifetimeSeconds }),
  };
  try {
    checkRetentionPolicy(policy);
  } catch (error) {
    if (!isQueueError(error, 'INVALID_ARGUMENT')) throw error;
    throw new UsageError(`${inFlags(error.message)}\n\n${USAGE}`);
  }
  return policy;
}

/** The library's refusal in the words of the command line: flags for fields, ages as typed. */
function inFlags(message: string): string {
  let text = message.replace(/^ledger: retention: /, '');
  for (const [field, flag] of Object.entries(FLAG_OF_FIELD)) text = text.split(field).join(flag);
  return text.replace(
    /\(([0-9]+) s(, [0-9]+ d)?\)/g,
    (_all, seconds: string) => `(${formatAge(Number(seconds))})`,
  );
}

/** A missing folder would prune nothing and pass: a mistyped path must not look like a clean store. */
async function fileStoreAt(dir: string, context: CommandContext): Promise<FilePayloadStore> {
  const root = path.resolve(context.io.cwd, dir);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--payload-dir: no such folder: ${dir}\n\n${USAGE}`);
  return new FilePayloadStore({ root });
}
