import { redactUrl } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { intOption, parseCommandArgs } from '../args';
import type { Command, CommandContext } from '../command-context';
import { configEnv, type Env } from '../config/config-env';
import type { ReceiverConfig } from '../config/config-types';
import { EMBEDDED_DEFAULTS_NOTE } from '../config/embedded-defaults';
import { ConfigError, UsageError } from '../errors';
import { ReportBuilder } from '../report/report-builder';
import type { CheckResult, CommandReport } from '../report/report-types';
import { CANARY_STEPS, runCanary } from './canary';
import { conformanceNotRun, QUICK_PROPERTY_IDS, runProviderConformance } from './conformance-run';

export { CANARY_STEPS, canaryEventId } from './canary';
export { QUICK_PROPERTY_IDS } from './conformance-run';

/** Each canary step's bound, unless --timeout-ms says otherwise. */
export const DEFAULT_DRILL_TIMEOUT_MS = 10_000;

const USAGE =
  'usage: queueport drill [--provider <name>]... [--quick | --skip-conformance] [--timeout-ms <ms>]';

const HELP = `${USAGE}

The exit drill. For each provider, a canary: the provider opens (its URL is understood and its
credentials accepted), its schema is current (infrai:// only: Infrai's discovery matches the
snapshot the adapter was built on), and one synthetic event is published, received, delivered
by the delivery worker to the configured receiver and recorded as delivered in the configured
ledger. Then the conformance suite runs against the provider, on scratch queues beside its own.
Every step is timed.

With no configuration file the drill runs on the embedded defaults, in this process: no
server, no credentials.

Options:
  --provider <name>   drill this provider (repeatable); every configured provider by default
  --quick             a subset of the suite that takes seconds on any provider:
                      ${QUICK_PROPERTY_IDS.join(', ')}
  --skip-conformance  the canary alone
  --timeout-ms <ms>   the bound of each canary step (default ${DEFAULT_DRILL_TIMEOUT_MS})

Exit status: 0 every check passed, 1 a check failed (the report says which and why), 2 a usage
or configuration error.
`;

export interface DrillOptions {
  /** Empty: every configured provider. */
  providers: string[];
  quick: boolean;
  skipConformance: boolean;
  timeoutMs: number;
}

export function parseDrillArgs(argv: readonly string[]): DrillOptions {
  const { values } = parseCommandArgs(
    argv,
    {
      provider: { type: 'string', multiple: true },
      quick: { type: 'boolean' },
      'skip-conformance': { type: 'boolean' },
      'timeout-ms': { type: 'string' },
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
  const loaded = await context.config();
  const configured = loaded.config.providers;
  const known = Object.keys(configured);
  const unknown = options.providers.filter((name) => !Object.hasOwn(configured, name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--provider: no provider named ${unknown.map((name) => `"${name}"`).join(', ')}; configured: ${known.length > 0 ? known.join(', ') : 'none'}\n\n${USAGE}`,
    );
  }
  const names = options.providers.length > 0 ? options.providers : known;
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
  try {
    for (const name of names) {
      const checks = await drillProvider(context, options, {
        name,
        url: configured[name]!.url,
        ledger,
        receiver: loaded.config.receiver,
        env,
      });
      for (const check of checks) builder.add(check);
      const first = checks.find((check) => check.status === 'failed');
      if (first) failedProviders.push({ name, first });
    }
  } finally {
    if (ledgerOpening) await ledgerOpening.then((opened) => opened.close()).catch(() => undefined);
  }

  const notes: string[] = [];
  if (failedProviders.length > 0) {
    // One line a CI log shows at a glance; the failures themselves are in the report in full.
    notes.push(`failed: ${failedProviders.map(({ name, first }) => `${name} at ${first.id}`).join(', ')}`);
  }
  if (options.skipConformance) notes.push('the conformance suite was not run (--skip-conformance)');
  if (loaded.file === undefined) notes.push(EMBEDDED_DEFAULTS_NOTE);
  return builder.build({
    summary: {
      providers: names.length,
      providersPassed: names.length - failedProviders.length,
      providersFailed: failedProviders.length,
      conformance: options.skipConformance ? 'skipped' : options.quick ? 'quick' : 'full',
    },
    notes,
  });
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
    progress: (line) => context.progress(line),
  });
  return [...checks, ...suite];
}
