import { readYamlSubset, type YamlValue } from './tiny-yaml';

/**
 * Checks for a scheduled exit drill: the workflow that runs it and the configuration it runs
 * against. A drill that runs four times a year fails quietly in between (a renamed secret, a
 * schedule that never fires, a report thrown away on failure), so what can break is checked on
 * every push instead of being found out on the first of the quarter.
 */

/** The provider schemes the CLI opens (`@queueport/memory`, `bullmq`, `sqs`, `infrai`). */
export const KNOWN_SCHEMES = ['memory', 'bullmq', 'sqs', 'infrai'] as const;

/** The variable `@queueport/infrai` reads when an `infrai://` URL names no `keyEnv=`. */
const INFRAI_DEFAULT_KEY_ENV = 'INFRAI_API_KEY';

/** What the AWS SDK reads from the environment by itself, for `sqs://` providers. */
const AWS_ENV = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION'];

/** Shapes of real credentials: none may appear in a workflow or a configuration as a literal. */
const SECRET_LITERALS: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  { what: 'an Infrai API key (ifr_…)', pattern: /ifr_[A-Za-z0-9]/ },
  { what: 'an AWS access key id (AKIA…/ASIA…)', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{4,}/ },
  { what: 'a Standard Webhooks secret (whsec_…)', pattern: /whsec_[A-Za-z0-9+/=]/ },
  { what: 'a URL with a password', pattern: /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i },
  { what: 'a private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
];

/** Environment variables that hold a credential by their name: they must come from the secret store. */
const SECRET_LOOKING_NAME =
  /(KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL)|(LEDGER|DATABASE|POSTGRES|REDIS)_URL/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const SECRET_REF = /^\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;
const MENTIONS_SECRETS = /\$\{\{[^}]*\bsecrets\b/;

export interface WorkflowFacts {
  /** False when the YAML could not be read: nothing else here is then known. */
  readable: boolean;
  crons: string[];
  /** The drill step's environment. */
  drillEnv: Record<string, string>;
  configPath: string | undefined;
  junitPath: string | undefined;
  /** Whether a step sets AWS credentials itself (OIDC), so the environment need not carry keys. */
  awsCredentialsStep: boolean;
}

export interface ConfigFacts {
  /** Every environment variable the configuration names (its `*Env` fields and `keyEnv=`). */
  envNames: string[];
  schemes: string[];
}

type Mapping = { [key: string]: YamlValue };
const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

// ---------------------------------------------------------------------------------------------
// The schedule

/** Undefined when `cron` fires once a quarter (four months, three apart, on one day); else why not. */
export function quarterlyProblem(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `"${cron}" is not five cron fields`;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  if (!isNumberIn(minute, 0, 59) || !isNumberIn(hour, 0, 23)) {
    return `"${cron}" must fire at one minute of one hour, not ${minute} ${hour}`;
  }
  if (!isNumberIn(day, 1, 28))
    return `"${cron}": the day of the month must be one day every month has (1-28)`;
  if (weekday !== '*') {
    return `"${cron}": with both a day of the month and a day of the week, cron fires on either`;
  }
  const months = expandField(month, 1, 12);
  if (!months) return `"${cron}": month field "${month}" is not numbers, ranges and steps`;
  const quarterly = months.length === 4 && months.every((m, i) => i === 0 || m - months[i - 1]! === 3);
  if (!quarterly) return `"${cron}" fires in months ${months.join(',')}, not once a quarter`;
  return undefined;
}

function isNumberIn(text: string, min: number, max: number): boolean {
  return /^\d{1,2}$/.test(text) && Number(text) >= min && Number(text) <= max;
}

/** `*`, `a`, `a-b`, with `/step`, comma-separated; undefined for what it does not read (names). */
function expandField(field: string, min: number, max: number): number[] | undefined {
  const values = new Set<number>();
  for (const part of field.split(',')) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!match) return undefined;
    const from = match[1] === '*' ? min : Number(match[2]);
    const to = match[1] === '*' ? max : match[3] !== undefined ? Number(match[3]) : match[4] ? max : from;
    const step = match[4] ? Number(match[4]) : 1;
    if (from < min || to > max || from > to || step < 1) return undefined;
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return [...values].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------
// The workflow

export function checkWorkflow(text: string): { problems: string[]; facts: WorkflowFacts } {
  const problems: string[] = [];
  const facts: WorkflowFacts = {
    readable: false,
    crons: [],
    drillEnv: {},
    configPath: undefined,
    junitPath: undefined,
    awsCredentialsStep: false,
  };
  problems.push(...literalSecrets(text, 'the workflow'));
  let doc: YamlValue;
  try {
    doc = readYamlSubset(text);
  } catch (error) {
    return { problems: [...problems, `the workflow cannot be read: ${(error as Error).message}`], facts };
  }
  if (!isMapping(doc)) return { problems: [...problems, 'the workflow is not a mapping'], facts };
  facts.readable = true;

  // on: schedule + workflow_dispatch
  const on = doc.on;
  if (!isMapping(on)) problems.push('"on:" must be a mapping with schedule and workflow_dispatch');
  else {
    const schedule = on.schedule;
    if (!Array.isArray(schedule) || schedule.length === 0) problems.push('no "on: schedule:" entry');
    else
      for (const entry of schedule) {
        const cron = isMapping(entry) ? str(entry.cron) : undefined;
        if (cron === undefined) problems.push('a schedule entry has no cron');
        else {
          facts.crons.push(cron);
          const problem = quarterlyProblem(cron);
          if (problem) problems.push(`schedule: ${problem}`);
        }
      }
    if (!Object.hasOwn(on, 'workflow_dispatch')) {
      problems.push('no "on: workflow_dispatch:": the drill cannot be run by hand between quarters');
    }
  }

  const permissions = doc.permissions;
  if (permissions === undefined)
    problems.push('no top-level "permissions:": the token gets the default scopes');
  else if (
    permissions === 'write-all' ||
    (isMapping(permissions) &&
      // id-token: write is what OpenID Connect to a cloud needs; it grants nothing in the repository.
      Object.entries(permissions).some(([scope, level]) => level === 'write' && scope !== 'id-token'))
  ) {
    problems.push('the drill needs no write permission');
  }

  // Find the one step that runs the drill.
  const jobs = isMapping(doc.jobs) ? doc.jobs : {};
  const drills: Array<{ job: string; jobValue: Mapping; steps: Mapping[]; index: number }> = [];
  for (const [job, jobValue] of Object.entries(jobs)) {
    if (!isMapping(jobValue)) continue;
    const steps = Array.isArray(jobValue.steps) ? jobValue.steps.filter(isMapping) : [];
    steps.forEach((step, index) => {
      if (/\bqueueport\s+drill\b/.test(str(step.run) ?? '')) drills.push({ job, jobValue, steps, index });
    });
  }
  if (drills.length !== 1) problems.push(`${drills.length} steps run "queueport drill"; expected one`);
  const drill = drills[0];
  if (drill) checkDrillJob(drill, problems, facts);

  checkSecretsPlacement(doc, drill ? [drill.job, drill.index] : undefined, problems);
  return { problems, facts };
}

function checkDrillJob(
  drill: { job: string; jobValue: Mapping; steps: Mapping[]; index: number },
  problems: string[],
  facts: WorkflowFacts,
): void {
  const { jobValue, steps, index } = drill;
  const step = steps[index]!;
  const run = str(step.run) ?? '';

  // Checked out, Node 20, installed: in that order, before the drill.
  const before = steps.slice(0, index);
  const checkout = before.findIndex((s) => str(s.uses)?.startsWith('actions/checkout@'));
  const node = before.findIndex((s) => str(s.uses)?.startsWith('actions/setup-node@'));
  const install = before.findIndex((s) =>
    /\b(npm ci|npm install|pnpm install|yarn install)\b/.test(str(s.run) ?? ''),
  );
  if (checkout === -1) problems.push('no actions/checkout step before the drill');
  if (node === -1) problems.push('no actions/setup-node step before the drill');
  else {
    const version = isMapping(before[node]!.with)
      ? str((before[node]!.with as Mapping)['node-version'])
      : undefined;
    if (!version || !/^20(\.[0-9x]+)*$/.test(version))
      problems.push(`setup-node must install Node 20, not ${version}`);
  }
  if (install === -1) problems.push('no install step (npm ci) before the drill');
  if (checkout !== -1 && node !== -1 && install !== -1 && !(checkout < node && node < install)) {
    problems.push('checkout, setup-node and install must come in that order');
  }
  facts.awsCredentialsStep = before.some((s) =>
    str(s.uses)?.startsWith('aws-actions/configure-aws-credentials@'),
  );

  // The command: JSON, JUnit, the configuration.
  const tokens = run.split(/\s+/);
  const flagValue = (flag: string) => {
    const i = tokens.indexOf(flag);
    const inline = tokens.find((t) => t.startsWith(`${flag}=`));
    return i !== -1 ? tokens[i + 1] : inline?.slice(flag.length + 1);
  };
  if (!tokens.includes('--json')) problems.push('the drill runs without --json');
  facts.junitPath = flagValue('--junit');
  if (!facts.junitPath || facts.junitPath.startsWith('-'))
    problems.push('the drill writes no --junit report');
  facts.configPath = flagValue('--config');
  if (!facts.configPath || facts.configPath.startsWith('-'))
    problems.push('the drill names no --config file');

  // A stuck drill is cancelled (SIGINT: scratch queues deleted, the partial report written)
  // while the job still has time to upload that report.
  const stepMinutes = minutes(step['timeout-minutes']);
  const jobMinutes = minutes(jobValue['timeout-minutes']);
  if (stepMinutes === undefined) {
    problems.push(
      'the drill step has no timeout-minutes: a stuck drill would use up the job and lose its report',
    );
  } else if (jobMinutes !== undefined && stepMinutes >= jobMinutes) {
    problems.push(
      `the drill step's timeout-minutes (${stepMinutes}) must be below the job's (${jobMinutes}), or the report upload gets no time`,
    );
  }

  // A failed drill fails the job.
  if (isTrue(step['continue-on-error']) || isTrue(jobValue['continue-on-error'])) {
    problems.push('continue-on-error on the drill: a failed drill would pass the job');
  }
  if (/\|\|\s*(true|:|exit\s+0)\b|;\s*(true|exit\s+0)\s*$|\bset\s+\+e\b|\bset\s+\+o\s+pipefail\b/.test(run)) {
    problems.push("the drill's exit code is swallowed (|| true, exit 0, set +e)");
  }
  if (/(^|[^|])\|([^|]|$)/.test(run) && str(step.shell) !== 'bash') {
    problems.push('the drill is piped without "shell: bash" (only an explicit bash shell sets -o pipefail)');
  }

  // The report, uploaded after the drill whatever happened to it.
  const upload = steps.slice(index + 1).find((s) => str(s.uses)?.startsWith('actions/upload-artifact@'));
  if (!upload) problems.push('no actions/upload-artifact step after the drill');
  else {
    const condition = str(upload.if)?.replace(/^\$\{\{\s*(.*?)\s*\}\}$/, '$1');
    if (condition !== 'always()')
      problems.push('the report upload must run "if: always()", or a failed drill loses it');
    const paths = (isMapping(upload.with) ? (str(upload.with.path) ?? '') : '')
      .split('\n')
      .map((p) => p.trim());
    if (facts.junitPath && !paths.includes(facts.junitPath)) {
      problems.push(`the upload does not include ${facts.junitPath}, the JUnit report the drill writes`);
    }
  }

  const env = isMapping(step.env) ? step.env : {};
  for (const [name, value] of Object.entries(env)) facts.drillEnv[name] = str(value) ?? '';
}

const minutes = (value: YamlValue | undefined): number | undefined => {
  const text = str(value);
  return text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;
};

const isTrue = (value: YamlValue | undefined) => value === 'true' || value === 'True' || value === 'TRUE';

/**
 * Every `${{ secrets.X }}` sits in the drill step's `env:`, as the whole value of a variable of
 * the same name: not in a `run:` script (where it is pasted into the shell, and echoed by `set
 * -x`), not at the job or workflow level (where the install step's dependency scripts would see
 * it). And every credential-looking variable anywhere takes its value from the secret store.
 */
function checkSecretsPlacement(doc: Mapping, drill: [string, number] | undefined, problems: string[]): void {
  const visit = (value: YamlValue, path: Array<string | number>) => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, [...path, i]);
    } else if (isMapping(value)) for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    else if (typeof value === 'string') {
      const where = path.join('.');
      const inEnv = path.length >= 2 && path[path.length - 2] === 'env';
      const name = String(path[path.length - 1]);
      if (MENTIONS_SECRETS.test(value)) {
        const inDrillEnv =
          drill !== undefined &&
          path.length === 6 &&
          path[0] === 'jobs' &&
          path[1] === drill[0] &&
          path[2] === 'steps' &&
          path[3] === drill[1] &&
          path[4] === 'env';
        const ref = SECRET_REF.exec(value);
        if (!inDrillEnv)
          problems.push(`${where}: secrets reach the drill only as its step's environment variables`);
        else if (!ref) problems.push(`${where}: must be exactly \${{ secrets.${name} }}`);
        else if (ref[1] !== name)
          problems.push(`${where}: takes secrets.${ref[1]}; name the secret like the variable`);
      } else if (inEnv && SECRET_LOOKING_NAME.test(name)) {
        problems.push(`${where}: a credential must come from \${{ secrets.${name} }}, not a literal`);
      }
    }
  };
  visit(doc, []);
}

function literalSecrets(text: string, where: string): string[] {
  return SECRET_LITERALS.filter(({ pattern }) => pattern.test(text)).map(
    ({ what }) => `${where} contains what looks like ${what}`,
  );
}

// ---------------------------------------------------------------------------------------------
// The configuration

export function checkConfig(config: unknown): { problems: string[]; facts: ConfigFacts } {
  const problems: string[] = [];
  const envNames = new Set<string>();
  const schemes = new Set<string>();
  problems.push(...literalSecrets(JSON.stringify(config), 'the configuration'));
  if (!isRecord(config)) {
    return {
      problems: [...problems, 'the configuration is not an object'],
      facts: { envNames: [], schemes: [] },
    };
  }

  // Secrets by name only: every credential-looking field is an *Env field holding a variable's name.
  const visit = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, `${path}[${i}]`);
    } else if (isRecord(value))
      for (const [key, item] of Object.entries(value)) {
        const where = path ? `${path}.${key}` : key;
        if (key.endsWith('Env')) {
          if (typeof item !== 'string' || !ENV_NAME.test(item))
            problems.push(`${where} must name an environment variable`);
          else envNames.add(item);
        } else if (/secret|password|passwd|token|api_?key|credential|^key$/i.test(key)) {
          problems.push(`${where}: a secret is named by an *Env field (${key}Env), never written here`);
        } else if (/postgres|database|redis/i.test(key)) {
          problems.push(`${where}: a connection string carries a password; name its variable (${key}Env)`);
        }
        visit(item, where);
      }
  };
  visit(config, '');

  // Providers by URL, known schemes, no credentials in them.
  const providers = config.providers;
  if (!isRecord(providers) || Object.keys(providers).length === 0) problems.push('no providers');
  else {
    // An exit drill proves the way out: from the provider in use to at least one other.
    if (Object.keys(providers).length < 2) problems.push('an exit drill needs at least two providers');
    for (const [name, provider] of Object.entries(providers)) {
      const raw = isRecord(provider) ? str(provider.url) : undefined;
      if (raw === undefined) {
        problems.push(`providers.${name} has no url`);
        continue;
      }
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        problems.push(`providers.${name}.url "${raw}" is not a URL`);
        continue;
      }
      const scheme = url.protocol.replace(/:$/, '');
      schemes.add(scheme);
      if (!(KNOWN_SCHEMES as readonly string[]).includes(scheme)) {
        problems.push(`providers.${name}: unknown scheme ${scheme}: (known: ${KNOWN_SCHEMES.join(', ')})`);
      }
      if (url.username || url.password) problems.push(`providers.${name}.url carries credentials`);
      for (const [key, value] of url.searchParams) {
        if (key.endsWith('Env')) {
          if (!ENV_NAME.test(value))
            problems.push(`providers.${name}.url ${key}= must name an environment variable`);
          else envNames.add(value);
        } else if (/secret|password|token|key|credential/i.test(key)) {
          problems.push(`providers.${name}.url carries ${key}=: name its variable instead (${key}Env=)`);
        }
      }
      if (scheme === 'infrai' && !url.searchParams.has('keyEnv')) envNames.add(INFRAI_DEFAULT_KEY_ENV);
    }
  }

  const ledger = config.ledger;
  if (ledger !== undefined) {
    const keys = isRecord(ledger) ? Object.keys(ledger) : [];
    if (!(keys.length === 1 && (keys[0] === 'postgresUrlEnv' || keys[0] === 'sqlite'))) {
      problems.push('ledger must be { "postgresUrlEnv": "VAR" } or { "sqlite": "file" }');
    }
  }

  const receiver = config.receiver;
  if (receiver !== undefined) {
    const raw = isRecord(receiver) ? str(receiver.url) : undefined;
    let url: URL | undefined;
    try {
      url = raw === undefined ? undefined : new URL(raw);
    } catch {}
    if (!url) problems.push('receiver.url is not a URL');
    else {
      if (url.protocol !== 'https:')
        problems.push('receiver.url must be https: in a drill against real providers');
      if (url.username || url.password) problems.push('receiver.url carries credentials');
    }
    if (isRecord(receiver) && receiver.allowInsecure === true) {
      problems.push('receiver.allowInsecure is for local drills only');
    }
    if (isRecord(receiver) && receiver.secretEnv === undefined) {
      problems.push('receiver has no secretEnv: the drill would not prove signed delivery');
    }
  }
  return { problems, facts: { envNames: [...envNames].sort(), schemes: [...schemes].sort() } };
}

// ---------------------------------------------------------------------------------------------
// The two together

/** What the configuration needs is what the workflow passes, and nothing more. */
export function checkTogether(workflow: WorkflowFacts, config: ConfigFacts): string[] {
  const problems: string[] = [];
  if (!workflow.readable) return problems;
  const passed = Object.keys(workflow.drillEnv);
  for (const name of config.envNames) {
    if (!passed.includes(name))
      problems.push(`the configuration names ${name}, which the drill step is not given`);
  }
  const needsAws = config.schemes.includes('sqs');
  if (needsAws && !workflow.awsCredentialsStep) {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      if (!passed.includes(name))
        problems.push(`an sqs:// provider needs ${name} (or a configure-aws-credentials step)`);
    }
  }
  for (const name of passed) {
    const used = config.envNames.includes(name) || (needsAws && AWS_ENV.includes(name));
    if (!used) problems.push(`the drill step is given ${name}, which nothing in the configuration uses`);
  }
  return problems;
}
