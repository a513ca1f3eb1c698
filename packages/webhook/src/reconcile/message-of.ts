/** An error's message for a report line: the run goes on, so nothing is rethrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
