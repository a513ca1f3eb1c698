import type { AdapterDefinition } from '@queueport/core/driver';

/**
 * The provider's URL without its queue: what an admin surface opens, and what the conformance
 * harness makes scratch queues beside. By the adapter's own rules (`urls.providerUrl`); for an
 * adapter that declares none, the URL without its path (the query, the provider's options, stays).
 */
export function providerUrlOf(queueUrl: string | URL, definition?: Pick<AdapterDefinition, 'urls'>): string {
  const url = new URL(String(queueUrl));
  if (definition?.urls) return definition.urls.providerUrl(url);
  url.pathname = '';
  return url.href;
}
