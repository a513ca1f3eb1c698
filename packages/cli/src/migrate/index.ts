import { intOption, parseCommandArgs, requireOption } from '../args';
import type { Command } from '../command-context';
import { isShowableName } from '../config/secret-names';
import { UsageError } from '../errors';
import { runCanaryCommand } from './canary-command';
import { runRollbackCommand } from './rollback-command';

export type { CanaryPath, CanaryPathKey } from './canary-path';
export type { PathCounts } from './canary-worker-path';
export {
  type DualPublishOptions,
  type DualPublishResult,
  type EffectCounter,
  runDualPublish,
} from './dual-publish';
export { type RollbackOptions, type RollbackResult, runRollback } from './rollback';

const USAGE = `usage: queueport migrate --from A --to B [--events N] [--window-ms M] [--drain-ms D]
       queueport migrate --to B --rollback [--drain-ms D]

The dual-publish canary of a provider change. N synthetic events (unique ids) are published to
both providers within the window, on scratch queues the canary creates and deletes; a delivery
worker consumes each, both sharing the configured ledger and one webhook sender to the configured
receiver. It fails if any event took effect twice, or if an event was lost (never delivered, or
accepted by a provider that never handed it back).

  --from A        the provider in use (its name in the configuration)
  --to B          the provider coming in
  --events N      canary events, default 20
  --window-ms M   publication is spread over this window, default 5000
  --drain-ms D    how long both may take to drain afterwards, default 30000
  --rollback      stop publishing to B and drain B's configured queue: every message is acked
                  without a claim or a send, so the ledger is left exactly as it was; the report
                  says which drained events the ledger has not seen delivered (A must carry them)

Effects are counted by the receiver when it is the embedded reference receiver, else from the
ledger and the receiver's answers (its Idempotency-Key is the event id).

Exit status: 0 every check passed, 1 a check failed (the report says which and why), 2 a usage
or configuration error.
`;

const FLAGS = {
  from: { type: 'string' },
  to: { type: 'string' },
  events: { type: 'string' },
  'window-ms': { type: 'string' },
  'drain-ms': { type: 'string' },
  rollback: { type: 'boolean' },
} as const;

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'The dual-publish canary of a provider change: both providers, one ledger, one effect each.',
  help: USAGE,
  async run(argv, context) {
    const { values } = parseCommandArgs(argv, FLAGS, USAGE);
    const drainMs = intOption(values['drain-ms'], '--drain-ms', USAGE, 0) ?? 30_000;
    const to = requireOption(values.to, '--to', USAGE);
    if (values.rollback) {
      if (values.events !== undefined || values['window-ms'] !== undefined) {
        throw new UsageError(
          `--rollback publishes nothing: --events and --window-ms do not apply\n\n${USAGE}`,
        );
      }
      return runRollbackCommand(context, to, drainMs);
    }
    const from = requireOption(values.from, '--from', USAGE);
    if (from === to)
      throw new UsageError(
        `--from and --to name the same provider${isShowableName(from) ? ` (${from})` : ''}: a migration needs two\n\n${USAGE}`,
      );
    const events = intOption(values.events, '--events', USAGE, 1) ?? 20;
    if (events > 10_000) throw new UsageError(`--events takes at most 10000\n\n${USAGE}`);
    const windowMs = intOption(values['window-ms'], '--window-ms', USAGE, 0) ?? 5_000;
    return runCanaryCommand(context, { from, to, events, windowMs, drainMs });
  },
};
