import {
  adapterHarness,
  type ConformanceProperty,
  type ConformanceReport,
  type PropertyResult,
  queueProperties,
  replayLine,
  runConformance,
} from '@queueport/conformance';
import type { AdapterDefinition } from '@queueport/core/driver';
import type { Env } from '../config/config-env';
import { providerUrlOf } from '../providers/provider-url';
import { withEnv } from '../providers/with-env';
import type { CheckResult } from '../report/report-types';
import { describeFailure } from './step';

/**
 * `--quick`: the properties that need no long waits: well under a second each on virtual time,
 * 20 to 30 s for the seven on a real-time provider (ack-deletes alone waits out two leases): the round trip, acks, batch limits, what is refused, and how a
 * missing or closed queue fails. Between them they catch a driver that loses, rewrites,
 * over-delivers or mis-sizes messages, or hides a broken provider behind an empty answer.
 */
export const QUICK_PROPERTY_IDS = [
  'round-trip',
  'ack-deletes',
  'batch-bounds',
  'invalid-envelope',
  'size-limit',
  'missing-queue',
  'closed-queue',
] as const;

/**
 * Generated cases per property on a real-time provider, in the drill: each ack-deletes case
 * waits out two leases, so the suite's real-time default (8) would take minutes per provider.
 * The drill proves the exit path every quarter; the provider's CI runs the suite at full
 * strength (`queueport conformance`). On virtual time the suite's own default runs in well
 * under a second.
 */
const DRILL_REAL_TIME_RUNS = 1;

export function drillProperties(quick: boolean): readonly ConformanceProperty[] {
  if (!quick) return queueProperties;
  return queueProperties.filter((p) => (QUICK_PROPERTY_IDS as readonly string[]).includes(p.id));
}

export interface ProviderConformanceOptions {
  provider: string;
  /** The provider's URL as configured: scratch queues are made beside its queue. */
  url: string;
  definition: AdapterDefinition;
  quick: boolean;
  /** The configuration's environment, for adapters that read their secrets by name. */
  env: Env;
  /** Each property's budget (`--property-timeout-ms`): past it, the property is stopped and fails. */
  propertyTimeoutMs: number;
  /** Stops the suite: the running property is stopped, its scratch queues deleted. */
  signal?: AbortSignal | undefined;
  progress(line: string, options?: { running?: boolean }): void;
}

/**
 * A property's budget in the drill, unless --property-timeout-ms says otherwise. A healthy
 * provider needs a few seconds per property at the drill's one run; a minute is far past that,
 * and keeps a broken provider's full drill within minutes rather than hours.
 */
export const DEFAULT_PROPERTY_TIMEOUT_MS = 60_000;

/**
 * The queue contract against one provider, through its adapter's admin surface: a scratch queue
 * per run beside the configured one, deleted after it. Every property is one check,
 * `conformance.<id>`; a suite that cannot start at all is one failed `conformance.setup`.
 */
export async function runProviderConformance(options: ProviderConformanceOptions): Promise<CheckResult[]> {
  const { provider, definition, quick } = options;
  const properties = drillProperties(quick);
  if (!definition.admin) {
    return setupFailed(
      provider,
      `${definition.packageName} has no admin surface: the suite needs one to create scratch queues`,
    );
  }
  const numRuns = definition.virtualClock ? undefined : DRILL_REAL_TIME_RUNS;
  // The harness opens its scratch queues with no context of its own: the secrets a URL names
  // must come from the CLI's environment, embedded defaults included.
  const harness = adapterHarness(withEnv(definition, options.env), providerUrlOf(options.url, definition), {
    name: provider,
    ...(numRuns === undefined ? {} : { numRuns }),
  });
  let report: ConformanceReport;
  try {
    report = await runConformance(harness, {
      properties,
      propertyTimeoutMs: options.propertyTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(numRuns === undefined ? {} : { numRuns }),
      onProgress: (event) => {
        if (event.kind === 'start') {
          options.progress(
            `drill ${provider}: conformance, ${event.total} properties${quick ? ' (--quick)' : ''}, seed ${event.seed}, ${options.propertyTimeoutMs} ms each at most`,
          );
        }
        if (event.kind === 'property-start') {
          options.progress(`drill ${provider}: [${event.index + 1}/${event.total}] conformance.${event.id}`, {
            running: true,
          });
        }
        if (event.kind === 'property-end') {
          const { result } = event;
          options.progress(
            `drill ${provider}: [${event.index + 1}/${event.total}] conformance.${result.id} ${result.status} in ${result.durationMs} ms`,
          );
        }
      },
    });
  } catch (error) {
    return setupFailed(provider, `the suite could not start on ${provider}: ${describeFailure(error)}`);
  }
  return report.results.map((result) => checkOf(result, provider, report.seed));
}

/** The drill's own word for the budget: a person sets it with the flag, not the option. */
function inCliTerms(error: string): string {
  return error.replace(/\bpropertyTimeoutMs\b/g, '--property-timeout-ms');
}

function setupFailed(provider: string, detail: string): CheckResult[] {
  const title = 'the suite can make scratch queues on the provider';
  return [{ id: 'conformance.setup', title, provider, status: 'failed', durationMs: 0, detail }];
}

/**
 * The suite not run, as one check rather than one per property: after a failed canary the
 * properties would only fail again for the same reason, and a report of 22 identical skips
 * hides the one line that matters.
 */
export function conformanceNotRun(provider: string, quick: boolean, reason: string): CheckResult {
  return {
    id: 'conformance',
    title: `the conformance suite${quick ? ' (--quick)' : ''}`,
    provider,
    status: 'skipped',
    durationMs: 0,
    detail: reason,
  };
}

function checkOf(result: PropertyResult, provider: string, seed: number): CheckResult {
  const base = {
    id: `conformance.${result.id}`,
    title: result.title,
    provider,
    durationMs: result.durationMs,
  };
  if (result.status === 'failed') {
    const detail = [
      `${result.id} failed on ${provider} after ${result.runs} run(s): ${inCliTerms(result.error ?? 'no error recorded')}`,
      `  counterexample: ${result.counterexample ?? 'none'}`,
      // The drill runs the suite whole: the conformance command runs exactly this case again.
      `  replay: queueport conformance --provider ${provider} ${replayLine(result)}`,
    ].join('\n');
    return { ...base, status: 'failed', detail };
  }
  if (result.status === 'skipped') {
    const reason = result.reason === 'interrupted' ? 'not run: the drill was interrupted' : result.reason;
    return { ...base, status: 'skipped', detail: reason ?? 'skipped' };
  }
  return { ...base, status: 'passed', detail: `${result.runs} run(s), seed ${seed}` };
}
