import { QueueError } from '../errors';
import type { AdapterDefinition } from './adapter-definition';

/**
 * Whether an import failed because a package is not installed (an optional peer). Loaders and
 * bundlers wrap the resolution failure, so its code may sit a few causes down.
 */
export function isModuleNotFound(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

type Installable = Pick<AdapterDefinition, 'scheme' | 'packageName' | 'peers'>;

/** The line that installs the adapter's package with its peers: `npm i @queueport/x peer`. */
export function installLine(adapter: Installable): string {
  return ['npm i', adapter.packageName, ...(adapter.peers ?? [])].join(' ');
}

/** The error an adapter whose package or peers are not installed gives: it names the install line. */
export function missingPeerError(adapter: Installable): QueueError {
  const peers = adapter.peers ?? [];
  return new QueueError(
    'INVALID_ARGUMENT',
    `${adapter.scheme}:// providers need ${adapter.packageName}${peers.length > 0 ? ` and its peers ${peers.join(', ')}` : ''}, which could not be loaded: ${installLine(adapter)}`,
    { details: { scheme: adapter.scheme, packageName: adapter.packageName, peers: [...peers] } },
  );
}

/**
 * Imports the part of an adapter that needs its peers, at `open` or `admin` and not before, so
 * the definition can be read (its peers, its URL rules) where a peer is not installed; a missing
 * module becomes `missingPeerError`. `load` is `() => import('./my-driver')`.
 */
export async function importWithPeers<T>(adapter: Installable, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isModuleNotFound(error)) throw missingPeerError(adapter);
    throw error;
  }
}
