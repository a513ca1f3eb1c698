/**
 * The provider's URL without its queue: what an admin surface opens, and what the conformance
 * harness makes scratch queues beside. A memory:// queue is named by the host (and any path),
 * every other scheme by the path; the query (the provider's options) stays.
 */
export function providerUrlOf(queueUrl: string | URL): string {
  const url = new URL(String(queueUrl));
  if (url.protocol === 'memory:') url.host = '';
  url.pathname = '';
  return url.href;
}
