import { connect } from 'node:net';
import type { AdapterDefinition, AdapterEndpoint } from '@queueport/core/driver';

/** Where a provider URL's server listens, by its adapter's `endpoint`; undefined where it names none. */
export function endpointOf(
  url: string,
  definition: Pick<AdapterDefinition, 'endpoint'> | undefined,
): AdapterEndpoint | undefined {
  if (!definition?.endpoint || !URL.canParse(url)) return undefined;
  try {
    return definition.endpoint(new URL(url));
  } catch {
    return undefined;
  }
}

/**
 * Why nothing answered: one TCP connection to the provider's server, bounded. Says whether the
 * connection was refused, timed out or could not be resolved, so a report names the real cause
 * rather than only the drill's own deadline. Undefined when the server accepts connections (the
 * provider itself is slow or hung) or the adapter names no server to try.
 */
export async function unreachableBecause(
  url: string,
  definition: Pick<AdapterDefinition, 'endpoint'> | undefined,
  timeoutMs: number,
): Promise<string | undefined> {
  const endpoint = endpointOf(url, definition);
  if (!endpoint) return undefined;
  const where = endpoint.host.includes(':')
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
  return new Promise((resolve) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(
      () => done(`${where} did not accept a connection within ${timeoutMs} ms`),
      timeoutMs,
    );
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      switch (error.code) {
        case 'ECONNREFUSED':
          return done(`the connection to ${where} was refused (ECONNREFUSED): nothing listens there`);
        case 'ENOTFOUND':
        case 'EAI_AGAIN':
          return done(`${endpoint.host} could not be resolved (${error.code})`);
        default:
          return done(`${where} could not be reached (${error.code ?? 'error'})`);
      }
    });
  });
}
