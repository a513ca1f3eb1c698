/**
 * The event id a stored body names, for dead-letter listings: a body may be anything a
 * provider holds (not queueport's, not JSON), so this never throws.
 */
export function eventIdOfBody(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { event_id?: unknown } | null)?.event_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
