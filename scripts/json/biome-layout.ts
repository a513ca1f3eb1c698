/**
 * JSON in Biome's layout, for result files the scripts write and `pnpm lint` checks: arrays of
 * scalars on one line when they fit, so a fresh run never leaves the tree failing lint.
 */
export function toBiomeJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2).replace(
    /^( *)(.*)\[\n([^[\]{}]*?)\n *\]/gm,
    (expanded, indent: string, head: string, items: string) => {
      const line = `${indent}${head}[${items
        .split('\n')
        .map((item) => item.trim())
        .join(' ')}]`;
      return line.length <= LINE_WIDTH ? line : expanded;
    },
  );
  return `${json}\n`;
}

/** Biome's default line width. */
const LINE_WIDTH = 110;
