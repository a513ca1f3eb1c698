/** One thing a command checked: a drill step, a conformance property, a migration count. */
export interface CheckResult {
  /** Stable, for JUnit and --json: `canary.publish`, `conformance.round-trip`, `migrate.duplicates`. */
  id: string;
  /** For people: what was checked. */
  title: string;
  /** The provider it was checked against, where there is one (its name in the configuration). */
  provider?: string;
  status: 'passed' | 'failed' | 'skipped';
  durationMs: number;
  /** Why it failed or was skipped; for a pass, what was measured. Never a secret. */
  detail?: string;
}

/** What every command returns: printed for people, as JSON, or as JUnit XML. */
export interface CommandReport {
  command: string;
  ok: boolean;
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  /** Command-specific numbers (counts of a migration, a reconciliation), printed as a table. */
  summary?: Record<string, number | string>;
  /** Lines for people after the table (what to do next). */
  notes?: string[];
  /**
   * A listing (dead letters, a ledger row): a table for people, kept whole in --json, left out
   * of JUnit. Every row should have the same keys, in the order they are shown.
   */
  rows?: Record<string, string | number | boolean | null>[];
  /**
   * Listings beside `rows`, each under its name (a ledger row's attempts): a table each for
   * people, long cells cut to one line there; kept whole in --json, left out of JUnit.
   */
  tables?: Record<string, Record<string, string | number | boolean | null>[]>;
}
