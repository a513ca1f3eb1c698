import { connect } from 'node:net';

/** Where a provider URL's server listens, for the schemes whose URL says so; undefined otherwise. */
export function endpointOf(url: string): { host: string; port: number } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '');
  switch (parsed.protocol) {
    case 'bullmq:':
      return parsed.hostname ? { host: hostOf(parsed), port: Number(parsed.port || 6379) } : undefined;
    case 'infrai:': {
      if (!parsed.hostname) return undefined;
      const plain = parsed.searchParams.get('tls') === 'false';
      return { host: hostOf(parsed), port: Number(parsed.port || (plain ? 80 : 443)) };
    }
    case 'sqs:': {
      // AWS itself is reached through the SDK's own resolution; only a local endpoint is probed.
      const endpoint = parsed.searchParams.get('endpoint');
      if (!endpoint) return undefined;
      try {
        const server = new URL(endpoint);
        const port = Number(server.port || (server.protocol === 'https:' ? 443 : 80));
        return server.hostname ? { host: hostOf(server), port } : undefined;
      } catch {
        return undefined;
      }
    }
    default:
      return undefined;
  }
}

/**
 * Why nothing answered: one TCP connection to the provider's server, bounded. Says whether the
 * connection was refused, timed out or could not be resolved, so a report names the real cause
 * rather than only the drill's own deadline. Undefined when the server accepts connections (the
 * provider itself is slow or hung) or the URL names no server to try.
 */
export async function unreachableBecause(url: string, timeoutMs: number): Promise<string | undefined> {
  const endpoint = endpointOf(url);
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
