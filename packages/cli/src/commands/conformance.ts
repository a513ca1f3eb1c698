import {
  adapterHarness,
  type ConformanceReport,
  formatFailure,
  type PropertyResult,
  queueProperties,
  replayLine,
  runConformance,
} from '@queueport/conformance';
import { intOption, listOption, parseCommandArgs, requireOption } from '../args';
import type { Command } from '../command-context';
import { configEnv } from '../config/config-env';
import { requireConfig } from '../config/require-config';
import { UsageError } from '../errors';
import { providerUrlOf } from '../providers/provider-url';
import { withEnv } from '../providers/with-env';
import { describeError, ReportBuilder } from '../report/report-builder';
import type { CheckResult } from '../report/report-types';
import { openForCheck } from './open-for-check';

/**
 * --quick: enough generated cases to catch a broken contract, few enough for a pre-commit hook.
 * On real time every case waits out leases, so fewer.
 */
const QUICK_RUNS = { virtual: 5, real: 2 };

/** Each property's budget here: the suite's real-time default of 8 runs per property takes minutes. */
export const CONFORMANCE_PROPERTY_TIMEOUT_MS = 300_000;

const USAGE =
  'usage: queueport conformance --provider <name> [--quick] [--seed N] [--runs N] [--only id,id] [--path P] [--property-timeout-ms <ms>]';

const HELP = `${USAGE}

Runs the queue contract (the conformance suite's properties) against a configured provider,
through its adapter's admin surface: every run gets a scratch queue beside the provider's own,
deleted after it. Adapters that take a clock run on virtual time, the rest on real time.

Options:
  --provider <name>  the provider, by its name in the configuration (required)
  --quick            ${QUICK_RUNS.virtual} generated cases per property on virtual time, ${QUICK_RUNS.real} on real time
  --seed <n>         the fast-check seed (printed with every run, so a failure replays)
  --runs <n>         generated cases per property
  --only <ids>       only these properties, comma-separated: ${queueProperties.map((p) => p.id).join(', ')}
  --path <p>         with --seed and one --only: replay the failing case a report printed
  --property-timeout-ms <ms>
                     each property's budget (default ${CONFORMANCE_PROPERTY_TIMEOUT_MS}): past it the property is
                     stopped, its scratch queues deleted, and it fails

SIGINT or SIGTERM stops the run: the running property's scratch queues are deleted and the
report of what ran is written.

Exit status: 0 every property held, 1 one failed, 2 a usage or configuration error, 130 / 143
stopped by SIGINT / SIGTERM.
`;

export const conformanceCommand: Command = {
  name: 'conformance',
  summary: "Runs the conformance suite against a provider through its adapter's admin surface.",
  help: HELP,
  async run(argv, context) {
    const { values } = parseCommandArgs(
      argv,
      {
        provider: { type: 'string' },
        quick: { type: 'boolean' },
        seed: { type: 'string' },
        runs: { type: 'string' },
        only: { type: 'string' },
        path: { type: 'string' },
        'property-timeout-ms': { type: 'string' },
      },
      USAGE,
    );
    const propertyTimeoutMs =
      intOption(values['property-timeout-ms'], '--property-timeout-ms', USAGE) ??
      CONFORMANCE_PROPERTY_TIMEOUT_MS;
    const name = requireOption(values.provider, '--provider', USAGE);
    const seed = intOption(values.seed, '--seed', USAGE, 0);
    const askedRuns = intOption(values.runs, '--runs', USAGE);
    const only = listOption(values.only);
    const unknown = only?.filter((id) => !queueProperties.some((p) => p.id === id)) ?? [];
    if (unknown.length > 0) {
      throw new UsageError(
        `--only: no property ${unknown.map((id) => `"${id}"`).join(', ')}; known: ${queueProperties.map((p) => p.id).join(', ')}\n\n${USAGE}`,
      );
    }

    const builder = new ReportBuilder('conformance', context.io);
    // The provider exists and every variable its URL names is set, before anything is opened.
    const loaded = await requireConfig(context, { providers: [{ name, flag: '--provider' }] });
    const provider = await openForCheck(context, builder, name);
    if (!provider) return builder.build();
    const { definition } = provider;
    await provider.close();
    if (!definition.admin) {
      builder.add({
        id: 'conformance.admin',
        title: 'the adapter has an admin surface',
        provider: name,
        status: 'failed',
        durationMs: 0,
        detail: `${definition.packageName} has no admin surface: the suite needs one to create scratch queues`,
      });
      return builder.build();
    }

    const quickRuns = definition.virtualClock ? QUICK_RUNS.virtual : QUICK_RUNS.real;
    const runs = askedRuns ?? (values.quick ? quickRuns : undefined);
    const url = providerUrlOf(loaded.config.providers[name]!.url, definition);
    const harness = adapterHarness(withEnv(definition, configEnv(context.io, loaded)), url, {
      name,
      ...(runs === undefined ? {} : { numRuns: runs }),
    });
    let report: ConformanceReport;
    try {
      report = await runConformance(harness, {
        ...(seed === undefined ? {} : { seed }),
        ...(runs === undefined ? {} : { numRuns: runs }),
        ...(only ? { only } : {}),
        ...(values.path ? { path: values.path } : {}),
        propertyTimeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
        onProgress: (event) => {
          if (event.kind === 'start')
            context.progress(
              `conformance ${name}: ${event.total} ${event.total === 1 ? 'property' : 'properties'}, seed ${event.seed}`,
            );
          if (event.kind === 'property-start') {
            context.progress(`conformance ${name}: [${event.index + 1}/${event.total}] ${event.id}`, {
              running: true,
            });
          }
        },
      });
    } catch (error) {
      builder.add({
        id: 'conformance.run',
        title: `run the suite against ${name}`,
        provider: name,
        status: 'failed',
        durationMs: 0,
        detail: describeError(error),
      });
      return builder.build();
    }
    for (const result of report.results) builder.add(checkOf(result, name));
    const failed = report.results.filter((result) => result.status === 'failed');
    return builder.build({
      summary: { provider: name, seed: report.seed, ...report.summary },
      notes: failed.map((result) => `replay: queueport conformance --provider ${name} ${replayLine(result)}`),
    });
  },
};

function checkOf(result: PropertyResult, provider: string): CheckResult {
  const base = {
    id: `conformance.${result.id}`,
    title: result.title,
    provider,
    durationMs: result.durationMs,
  };
  if (result.status === 'failed')
    return { ...base, status: 'failed', detail: formatFailure(result, provider) };
  if (result.status === 'skipped') return { ...base, status: 'skipped', detail: result.reason ?? 'skipped' };
  return { ...base, status: 'passed', detail: `${result.runs} run(s)` };
}
