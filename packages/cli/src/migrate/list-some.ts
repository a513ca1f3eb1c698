/** A list cut for a report line: ids are long, and a thousand of them help nobody. */
export function listSome(ids: readonly string[], max = 20): string {
  if (ids.length <= max) return ids.join(', ');
  return `${ids.slice(0, max).join(', ')} and ${ids.length - max} more`;
}
