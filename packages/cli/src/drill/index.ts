import { redactUrl } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { intOption, parseCommandArgs } from '../args';
import type { Command, CommandContext } from '../command-context';
import { configEnv, type Env } from '../config/config-env';
import type { ReceiverConfig } from '../config/config-types';
import { EMBEDDED_DEFAULTS_NOTE } from '../config/embedded-defaults';
import { requireConfig } from '../config/require-config';
import { ConfigError, UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import type { CheckResult, CommandReport } from '../report/report-types';
import { CANARY_STEPS, runCanary } from './canary';
import {
  conformanceNotRun,
  DEFAULT_PROPERTY_TIMEOUT_MS,
  QUICK_PROPERTY_IDS,
  runProviderConformance,
} from './conformance-run';
import { INTERRUPTED } from './step';

export { CANARY_STEPS, canaryEventId } from './canary';
export { DEFAULT_PROPERTY_TIMEOUT_MS, QUICK_PROPERTY_IDS } from './conformance-run';

/** Each canary step's bound, unless --timeout-ms says otherwise. */
export const DEFAULT_DRILL_TIMEOUT_MS = 10_000;

const USAGE =
  'usage: queueport drill [--provider <name>]... [--quick | --skip-conformance] [--timeout-ms <ms>] [--property-timeout-ms <ms>]';

const HELP = `${USAGE}

The exit drill. For each provider, a canary: the provider opens (its URL is understood and its
credentials accepted), its adapter's preflight checks pass (one row each, where the adapter
declares them: a schema still matching the one it was built on), and one synthetic event is published, received, delivered
by the delivery worker to the configured receiver and recorded as delivered in the configured
ledger. Then the conformance suite runs against the provider, on scratch queues beside its own.
Every step is timed, and the report says how long each provider took. Scratch queues are
deleted and the canary taken back off the queue however the drill ends (it never goes to the
dead letters, where \`dlq redrive\` would hand it to your consumers).

With no configuration file the drill runs on the embedded defaults, in this process: no
server, no credentials. The full suite takes seconds there, and about two minutes per real
provider (its properties wait out real leases and delays).

Options:
  --provider <name>           drill this provider (repeatable); every configured provider by default
  --quick                     a subset of the suite: well under a second per property on virtual
                              time, 20 to 30 s per provider on real time:
                              ${QUICK_PROPERTY_IDS.join(', ')}
  --skip-conformance          the canary alone
  --timeout-ms <ms>           the bound of each canary step (default ${DEFAULT_DRILL_TIMEOUT_MS})
  --property-timeout-ms <ms>  the budget of each conformance property (default ${DEFAULT_PROPERTY_TIMEOUT_MS}):
                              past it the property is stopped, its queues deleted, and it fails

SIGINT (Ctrl-C) or SIGTERM stops the drill: the running step is stopped, scratch queues are
deleted, and the report (and --junit file) of what ran is written; the same signal again exits
at once.

Exit status: 0 every check passed, 1 a check failed (the report says which and why), 2 a usage
or configuration error, 130 stopped by SIGINT, 143 stopped by SIGTERM.
`;

export interface DrillOptions {
  /** Empty: every configured provider. */
  providers: string[];
  quick: boolean;
  skipConformance: boolean;
  timeoutMs: number;
  propertyTimeoutMs: number;
}

export function parseDrillArgs(argv: readonly string[]): DrillOptions {
  const { values } = parseCommandArgs(
    argv,
    {
      provider: { type: 'string', multiple: true },
      quick: { type: 'boolean' },
      'skip-conformance': { type: 'boolean' },
      'timeout-ms': { type: 'string' },
      'property-timeout-ms': { type: 'string' },
    },
    USAGE,
  );
  // parseArgs gives an array for a `multiple` option; parseCommandArgs types every string option alike.
  const providers = (values.provider as unknown as string[] | undefined) ?? [];
  if (providers.some((name) => name.trim() === ''))
    throw new UsageError(`--provider takes a name\n\n${USAGE}`);
  if (values.quick && values['skip-conformance']) {
    throw new UsageError(
      `--quick picks which conformance properties run; --skip-conformance runs none\n\n${USAGE}`,
    );
  }
  return {
    providers: [...new Set(providers)],
    quick: values.quick === true,
    skipConformance: values['skip-conformance'] === true,
    timeoutMs: intOption(values['timeout-ms'], '--timeout-ms', USAGE) ?? DEFAULT_DRILL_TIMEOUT_MS,
    propertyTimeoutMs:
      intOption(values['property-timeout-ms'], '--property-timeout-ms', USAGE) ?? DEFAULT_PROPERTY_TIMEOUT_MS,
  };
}

export const drillCommand: Command = {
  name: 'drill',
  summary: 'The exit drill: a canary event end to end through every provider, then the conformance suite.',
  help: HELP,
  run: runDrill,
};

async function runDrill(argv: readonly string[], context: CommandContext): Promise<CommandReport> {
  const options = parseDrillArgs(argv);
  const builder = new ReportBuilder('drill', context.io);
  const { config: found } = await context.config();
  const names = options.providers.length > 0 ? options.providers : Object.keys(found.providers);
  // Everything the drill will use, checked before the first canary is published: an unset
  // variable or a missing receiver is exit 2 now, not a failed step halfway through.
  const loaded = await requireConfig(context, {
    providers: names.map((name) => ({ name, flag: '--provider' })),
    ledger: true,
    receiver: 'the drill delivers its synthetic event to a receiver',
  });
  const configured = loaded.config.providers;
  if (names.length === 0) throw new ConfigError('no providers are configured', loaded.file, 'providers');

  const env = configEnv(context.io, loaded);
  // One ledger for every provider, opened when the first canary reaches it: a drill with a
  // provider that does not open never touches the database.
  let ledgerOpening: Promise<Ledger> | undefined;
  const ledger = () => {
    ledgerOpening ??= context.openLedger();
    return ledgerOpening;
  };
  const failedProviders: { name: string; first: CheckResult }[] = [];
  const took: { name: string; ms: number; checks: CheckResult[] }[] = [];
  const interrupted = () => context.signal?.aborted === true;
  try {
    for (const name of names) {
      if (interrupted()) {
        builder.add({
          id: 'drill',
          title: 'the exit drill of this provider',
          provider: name,
          status: 'skipped',
          durationMs: 0,
          detail: INTERRUPTED,
        });
        continue;
      }
      const started = context.io.now();
      const checks = await drillProvider(context, options, {
        name,
        url: configured[name]!.url,
        ledger,
        receiver: loaded.config.receiver,
        env,
      });
      took.push({ name, ms: context.io.now() - started, checks });
      for (const check of checks) builder.add(check);
      const first = checks.find((check) => check.status === 'failed');
      if (first) failedProviders.push({ name, first });
    }
  } finally {
    if (ledgerOpening) await ledgerOpening.then((opened) => opened.close()).catch(() => undefined);
  }

  const notes: string[] = [];
  if (interrupted()) {
    notes.push(
      'interrupted: this report holds what ran before the drill was stopped; its scratch queues were deleted',
    );
  }
  if (failedProviders.length > 0) {
    // One line a CI log shows at a glance; the failures themselves are in the report in full.
    notes.push(`failed: ${failedProviders.map(({ name, first }) => `${name} at ${first.id}`).join(', ')}`);
  }
  for (const each of took) notes.push(timeNote(each));
  if (options.skipConformance) notes.push('the conformance suite was not run (--skip-conformance)');
  if (loaded.file === undefined) notes.push(EMBEDDED_DEFAULTS_NOTE);
  const report = builder.build({
    summary: {
      providers: names.length,
      providersPassed: took.length - failedProviders.length,
      providersFailed: failedProviders.length,
      conformance: options.skipConformance ? 'skipped' : options.quick ? 'quick' : 'full',
      ...Object.fromEntries(took.map(({ name, ms }) => [`seconds.${name}`, seconds(ms)])),
    },
    notes,
  });
  // An interrupted drill proved nothing about what it did not reach.
  return interrupted() ? { ...report, ok: false } : report;
}

/** How long one provider took, and where the time went: the line to read when a drill is slow. */
function timeNote({ name, ms, checks }: { name: string; ms: number; checks: CheckResult[] }): string {
  const sum = (prefix: string) =>
    checks
      .filter((check) => check.id.startsWith(prefix))
      .reduce((total, check) => total + check.durationMs, 0);
  const slowest = checks
    .filter((check) => check.id.startsWith('conformance.'))
    .reduce<CheckResult | undefined>((a, b) => (a && a.durationMs >= b.durationMs ? a : b), undefined);
  const parts = [`canary ${seconds(sum('canary.'))} s`];
  if (checks.some((check) => check.id.startsWith('conformance.'))) {
    parts.push(`conformance ${seconds(sum('conformance.'))} s`);
    if (slowest) parts.push(`slowest ${slowest.id} ${seconds(slowest.durationMs)} s`);
  }
  return `${name} took ${seconds(ms)} s (${parts.join(', ')})`;
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

interface ProviderTarget {
  name: string;
  url: string;
  ledger: () => Promise<Ledger>;
  receiver: ReceiverConfig | undefined;
  env: Env;
}

/** The canary, then (when it passed) the suite, against one provider. */
async function drillProvider(
  context: CommandContext,
  options: DrillOptions,
  target: ProviderTarget,
): Promise<CheckResult[]> {
  const { name } = target;
  context.progress(`drill ${name}: ${redactUrl(target.url)}`);
  const canary = await runCanary({
    provider: name,
    url: target.url,
    context,
    ledger: target.ledger,
    receiver: target.receiver,
    env: target.env,
    timeoutMs: options.timeoutMs,
  });
  const definition = canary.opened?.definition;
  // The suite makes queues of its own: the canary's is not needed any more.
  await canary.opened?.close().catch(() => undefined);
  const checks = [...canary.checks];
  if (options.skipConformance) return checks;
  if (context.signal?.aborted) {
    checks.push(conformanceNotRun(name, options.quick, INTERRUPTED));
    return checks;
  }
  if (!canary.ok || !definition) {
    const failed = canary.checks.find((check) => check.status === 'failed');
    checks.push(
      conformanceNotRun(
        name,
        options.quick,
        `not run: the canary failed at ${failed?.id ?? CANARY_STEPS.open.id}, and the suite would fail for the same reason`,
      ),
    );
    return checks;
  }
  const suite = await runProviderConformance({
    provider: name,
    url: target.url,
    definition,
    quick: options.quick,
    env: target.env,
    propertyTimeoutMs: options.propertyTimeoutMs,
    signal: context.signal,
    progress: (line, lineOptions) => context.progress(line, lineOptions),
  });
  return [...checks, ...suite];
}
