import type { CommandReport } from './report-types';

/** The report for machines, whole: one JSON document on stdout, nothing else there. */
export function formatJson(report: CommandReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
