import { describe, expect, it } from 'vitest';
import { runMigrationCanary } from '../src/migration-canary';

describe('the migration canary between two providers', () => {
  it('publishes every event through both, and each takes effect exactly once', async () => {
    const { exitCode, report } = await runMigrationCanary({ events: 10 });
    expect(exitCode).toBe(0);
    expect(report.ok).toBe(true);
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(byId['migrate.no-duplicates']).toBe('passed');
    expect(byId['migrate.no-losses']).toBe('passed');
    expect(report.checks.filter((c) => c.id === 'migrate.publish').map((c) => c.status)).toEqual([
      'passed',
      'passed',
    ]);
  });

  it('fails as a usage error, with nothing checked, for a provider the configuration lacks', async () => {
    const { exitCode, report } = await runMigrationCanary({ from: 'memory', to: 'nowhere' });
    expect(exitCode).toBe(2);
    expect(report.ok).toBe(false);
    expect(JSON.stringify(report)).toContain('nowhere');
  });
});
