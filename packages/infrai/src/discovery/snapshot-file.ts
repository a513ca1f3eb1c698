import type { CapabilityContract, DiscoverySnapshot } from './discovery-format';

/** What the committed snapshot starts with; kept when a snapshot file already has its own. */
export const DEFAULT_SNAPSHOT_COMMENT =
  'Infrai queue capabilities as discovery serves them, normalized by scripts/infrai-codegen.ts. ' +
  'Regenerate with `pnpm infrai:codegen`; never edit by hand except to follow a confirmed change of the live API.';

/**
 * The snapshot file's text: 2-space JSON and a trailing newline, `$comment` first, capabilities
 * sorted by id and each contract's keys in one order, so the same discovery always writes the
 * same bytes and a diff in review shows only what changed.
 */
export function serializeSnapshot(snapshot: DiscoverySnapshot, comment = snapshot.$comment): string {
  const capabilities: Record<string, CapabilityContract> = {};
  for (const id of Object.keys(snapshot.capabilities).sort()) {
    const { method, path, summary, available, regions, request, response, errors, ...later } =
      snapshot.capabilities[id]!;
    // Fields discovery-format may add later keep their place after the known ones.
    capabilities[id] = { method, path, summary, available, regions, request, response, errors, ...later };
  }
  const file: DiscoverySnapshot = {
    ...(comment === undefined ? {} : { $comment: comment }),
    snapshot: snapshot.snapshot,
    discovery_version: snapshot.discovery_version,
    capabilities,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
