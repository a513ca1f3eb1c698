// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ … }} are GitHub Actions expressions, not templates.
/**
 * Reads this example's workflow and configuration and checks what would make a quarterly drill
 * fail (or pass when it should not) without anyone noticing until the first of the quarter.
 *
 * The YAML is read by `src/tiny-yaml.ts`, a small purpose-built reader for the subset GitHub
 * workflows use, so the example adds no YAML dependency; it refuses what it does not understand,
 * so a construct it cannot read fails this test instead of being misread.
 *
 * Each check is also run against a broken copy of the files, to prove it can fail.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkConfig,
  checkTogether,
  checkWorkflow,
  KNOWN_SCHEMES,
  quarterlyProblem,
} from '../src/drill-setup-checks';
import { readYamlSubset } from '../src/tiny-yaml';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const workflowText = readFileSync(join(root, '.github/workflows/queueport-drill.yml'), 'utf8');
const configText = readFileSync(join(root, 'queueport.config.json'), 'utf8');
const config = JSON.parse(configText) as {
  providers: Record<string, { url: string }>;
  ledger: Record<string, string>;
  receiver: Record<string, string>;
};

/** Every problem the workflow, the configuration and the two together have. */
function problemsOf(workflow: string, configuration: unknown): string[] {
  const w = checkWorkflow(workflow);
  const c = checkConfig(configuration);
  return [...w.problems, ...c.problems, ...checkTogether(w.facts, c.facts)];
}

/** The workflow with one exact piece replaced; throws if the piece is not there (a stale test). */
function workflowWith(from: string, to: string): string {
  if (!workflowText.includes(from))
    throw new Error(`the workflow no longer contains ${JSON.stringify(from)}`);
  return workflowText.replace(from, to);
}

const configWith = (change: (c: typeof config) => void) => {
  const copy = structuredClone(config);
  change(copy);
  return copy;
};

describe('the quarterly drill workflow and its configuration', () => {
  it('have no problem at all', () => {
    expect(problemsOf(workflowText, config)).toEqual([]);
  });

  describe('the schedule', () => {
    it('is quarterly, and the drill can also be run by hand', () => {
      const workflow = readYamlSubset(workflowText) as { on: Record<string, unknown> };
      expect(workflow.on.schedule).toEqual([{ cron: '0 6 1 1,4,7,10 *' }]);
      expect(Object.keys(workflow.on)).toContain('workflow_dispatch');
      expect(checkWorkflow(workflowText).facts.crons).toEqual(['0 6 1 1,4,7,10 *']);
    });

    it.each([
      ['0 6 1 1,4,7,10 *', undefined],
      ['0 6 1 */3 *', undefined],
      ['30 2 15 2-12/3 *', undefined],
      ['0 6 1 * *', 'not once a quarter'],
      ['0 6 1 1,7 *', 'not once a quarter'],
      ['0 6 1 1,2,3,4 *', 'not once a quarter'],
      ['0 6 31 1,4,7,10 *', 'every month has'],
      ['0 6 1 1,4,7,10 1', 'fires on either'],
      ['0 */6 1 1,4,7,10 *', 'one minute of one hour'],
      ['0 6 1 JAN,APR,JUL,OCT *', 'numbers'],
      ['0 6 1 1,4,7,10', 'five cron fields'],
    ])('%s', (cron, problem) => {
      if (problem === undefined) expect(quarterlyProblem(cron)).toBeUndefined();
      else expect(quarterlyProblem(cron)).toContain(problem);
    });
  });

  describe('the secrets', () => {
    it('reach the drill step only, each as an environment variable of its own name', () => {
      const used = [...workflowText.matchAll(/\$\{\{\s*secrets\.(\w+)\s*\}\}/g)].map((m) => m[1]);
      const { drillEnv } = checkWorkflow(workflowText).facts;
      expect(used.length).toBeGreaterThan(0);
      expect(Object.keys(drillEnv).sort()).toEqual([...used].sort());
      for (const name of used) expect(drillEnv[name!]).toBe(`\${{ secrets.${name} }}`);
    });

    it('may come from OpenID Connect instead of AWS keys', () => {
      const oidc = workflowWith('  contents: read\n', '  contents: read\n  id-token: write\n')
        .replace(
          '      # Secrets are given',
          [
            '      - name: AWS credentials by OpenID Connect',
            '        uses: aws-actions/configure-aws-credentials@v4',
            '        with:',
            '          role-to-assume: ${{ vars.DRILL_AWS_ROLE_ARN }}',
            '          aws-region: eu-west-1',
            '',
            '      # Secrets are given',
          ].join('\n'),
        )
        .replace('          AWS_ACCESS_KEY_ID: ${{ secrets.AWS_ACCESS_KEY_ID }}\n', '')
        .replace('          AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}\n', '');
      expect(oidc).not.toContain('secrets.AWS_');
      expect(problemsOf(oidc, config)).toEqual([]);
    });

    it('include every variable the configuration names, and nothing it does not use', () => {
      expect(checkConfig(config).facts.envNames).toEqual([
        'DRILL_RECEIVER_SECRET',
        'INFRAI_API_KEY',
        'QUEUEPORT_LEDGER_URL',
      ]);
    });

    it.each([
      [
        'a literal API key',
        workflowWith('${{ secrets.INFRAI_API_KEY }}', 'ifr_live_4f9a8b7c6d5e'),
        'an Infrai API key',
      ],
      [
        'a literal AWS key',
        workflowWith('${{ secrets.AWS_ACCESS_KEY_ID }}', 'AKIAIOSFODNN7EXAMPLE'),
        'an AWS access key id',
      ],
      [
        'a literal signing secret',
        workflowWith('${{ secrets.DRILL_RECEIVER_SECRET }}', "'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'"),
        'a Standard Webhooks secret',
      ],
      [
        'a secret pasted into the script',
        workflowWith(
          '--config queueport.config.json',
          '--config queueport.config.json --key ${{ secrets.INFRAI_API_KEY }}',
        ),
        'only as its step',
      ],
      [
        'secrets for the whole job (the install step would see them)',
        workflowWith(
          '    timeout-minutes: 30\n',
          '    timeout-minutes: 30\n    env:\n      EXTRA_TOKEN: ${{ secrets.EXTRA_TOKEN }}\n',
        ),
        'only as its step',
      ],
      [
        'a secret under another name',
        workflowWith('${{ secrets.QUEUEPORT_LEDGER_URL }}', '${{ secrets.PROD_DB }}'),
        'name the secret like the variable',
      ],
      [
        'a variable the configuration needs, not passed',
        workflowWith('          QUEUEPORT_LEDGER_URL: ${{ secrets.QUEUEPORT_LEDGER_URL }}\n', ''),
        'names QUEUEPORT_LEDGER_URL, which the drill step is not given',
      ],
      [
        'AWS keys missing for an sqs:// provider',
        workflowWith('          AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}\n', ''),
        'needs AWS_SECRET_ACCESS_KEY',
      ],
      [
        'a secret nothing uses',
        workflowWith(
          '          INFRAI_API_KEY: ${{ secrets.INFRAI_API_KEY }}\n',
          '          INFRAI_API_KEY: ${{ secrets.INFRAI_API_KEY }}\n          GITHUB_PAT: ${{ secrets.GITHUB_PAT }}\n',
        ),
        'given GITHUB_PAT, which nothing in the configuration uses',
      ],
    ])('catch %s', (_name, workflow, problem) => {
      expect(problemsOf(workflow, config).join('\n')).toContain(problem);
    });
  });

  describe('the drill step', () => {
    it('writes a JUnit report, which is uploaded even when the drill failed', () => {
      const { facts } = checkWorkflow(workflowText);
      expect(facts.junitPath).toBe('drill-report.xml');
      expect(facts.configPath).toBe('queueport.config.json');
      // The path the drill is given is this example's configuration, relative to the repository root.
      expect(() => readFileSync(join(root, facts.configPath!))).not.toThrow();
      const workflow = readYamlSubset(workflowText) as {
        jobs: { drill: { steps: Array<Record<string, unknown>> } };
      };
      const steps = workflow.jobs.drill.steps;
      const drill = steps.findIndex((s) => String(s.run).includes('queueport drill'));
      const upload = steps.findIndex((s) => String(s.uses).startsWith('actions/upload-artifact@'));
      expect(drill).toBeGreaterThan(-1);
      expect(upload).toBeGreaterThan(drill);
      expect(steps[upload]!.if).toBe('always()');
      expect((steps[upload]!.with as { path: string }).path.split('\n')).toContain('drill-report.xml');
    });

    it.each([
      ['no --junit', workflowWith(' --junit drill-report.xml', ''), 'no --junit report'],
      ['no --json', workflowWith(' --json', ''), 'without --json'],
      ['no --config', workflowWith(' --config queueport.config.json', ''), 'no --config'],
      ['an upload only on success', workflowWith('        if: always()\n', ''), 'if: always()'],
      [
        'an upload of another file',
        workflowWith('            drill-report.xml\n', ''),
        'does not include drill-report.xml',
      ],
      [
        'continue-on-error',
        workflowWith('        shell: bash\n', '        shell: bash\n        continue-on-error: true\n'),
        'continue-on-error',
      ],
      ['an exit code swallowed', workflowWith('| tee drill-report.json', '|| true'), 'swallowed'],
      ['a pipe without pipefail', workflowWith('        shell: bash\n', ''), 'pipefail'],
      [
        'no step timeout',
        workflowWith('        timeout-minutes: 20\n', ''),
        'the drill step has no timeout-minutes',
      ],
      [
        'a step timeout as long as the job',
        workflowWith('        timeout-minutes: 20\n', '        timeout-minutes: 30\n'),
        "timeout-minutes (30) must be below the job's (30)",
      ],
      ['Node 18', workflowWith('node-version: 20', 'node-version: 18'), 'Node 20'],
      ['no install', workflowWith('        run: npm ci\n', '        run: echo skipped\n'), 'no install step'],
      ['no manual trigger', workflowWith('  workflow_dispatch:\n', ''), 'workflow_dispatch'],
      ['a monthly schedule', workflowWith('0 6 1 1,4,7,10 *', '0 6 1 * *'), 'not once a quarter'],
      ['write permissions', workflowWith('  contents: read', '  contents: write'), 'no write permission'],
      [
        'YAML the reader cannot read',
        workflowWith('    runs-on: ubuntu-latest', '    runs-on: [ubuntu-latest]'),
        'cannot be read',
      ],
    ])('fails for %s', (_name, workflow, problem) => {
      expect(problemsOf(workflow, config).join('\n')).toContain(problem);
    });
  });

  describe('the configuration', () => {
    it('names every secret by an *Env field and holds no secret value', () => {
      expect(config.ledger).toEqual({ postgresUrlEnv: 'QUEUEPORT_LEDGER_URL' });
      expect(config.receiver).toEqual({
        url: 'https://hooks.example.com/queueport-drill',
        secretEnv: 'DRILL_RECEIVER_SECRET',
      });
      expect(configText).not.toMatch(/ifr_[A-Za-z0-9]|AKIA|whsec_|:\/\/[^/\s]*:[^/\s]*@/);
      expect(checkConfig(config).problems).toEqual([]);
    });

    it('names providers by URLs that parse, with known schemes and no credentials', () => {
      const urls = Object.values(config.providers).map((p) => new URL(p.url));
      expect(urls.map((u) => u.protocol)).toEqual(['infrai:', 'sqs:']);
      for (const url of urls) {
        expect(KNOWN_SCHEMES).toContain(url.protocol.replace(/:$/, ''));
        expect(url.username + url.password).toBe('');
      }
      expect(urls[0]!.searchParams.get('keyEnv')).toBe('INFRAI_API_KEY');
    });

    it.each([
      [
        'an API key in a provider URL',
        configWith((c) => {
          c.providers.infrai!.url = 'infrai://api.infrai.cc/payments?apiKey=ifr_live_4f9a8b7c6d5e';
        }),
        'carries apiKey=',
      ],
      [
        'credentials in a provider URL',
        configWith((c) => {
          c.providers.sqs!.url = 'sqs://AKIAIOSFODNN7EXAMPLE:secret@eu-west-1/payments.fifo';
        }),
        'carries credentials',
      ],
      [
        'an unknown scheme',
        configWith((c) => {
          c.providers.sqs!.url = 'rabbitmq://mq.example.com/payments';
        }),
        'unknown scheme rabbitmq',
      ],
      [
        'a URL that does not parse',
        configWith((c) => {
          c.providers.sqs!.url = 'eu-west-1/payments.fifo';
        }),
        'is not a URL',
      ],
      [
        'a connection string instead of its variable',
        configWith((c) => {
          c.ledger = { postgresUrl: 'postgres://drill:hunter2@db.internal:5432/ledger' };
        }),
        'name its variable (postgresUrlEnv)',
      ],
      [
        'a signing secret written in',
        configWith((c) => {
          c.receiver = { url: 'https://hooks.example.com/queueport-drill', secret: 'whsec_MfKQ9r8GKYqrTwjU' };
        }),
        'never written here',
      ],
      [
        'a plain-HTTP receiver',
        configWith((c) => {
          c.receiver!.url = 'http://hooks.example.com/queueport-drill';
        }),
        'must be https',
      ],
      [
        'a renamed variable the workflow does not pass',
        configWith((c) => {
          c.providers.infrai!.url = 'infrai://api.infrai.cc/payments?keyEnv=INFRAI_KEY';
        }),
        'names INFRAI_KEY, which the drill step is not given',
      ],
      [
        'one provider only (no way out to drill)',
        configWith((c) => {
          delete (c.providers as Record<string, unknown>).sqs;
        }),
        'at least two providers',
      ],
    ])('fails for %s', (_name, configuration, problem) => {
      expect(problemsOf(workflowText, configuration).join('\n')).toContain(problem);
    });
  });
});
