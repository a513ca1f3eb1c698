// Copied into the scratch project by scripts/package-check/install-alone.ts and run there with
// plain `node check.cjs <seed>`: the packed packages as a CommonJS adapter author requires them.
const path = require('node:path');

const seed = Number(process.argv[2]);
const modules = path.join(process.cwd(), 'node_modules') + path.sep;

function fail(message) {
  console.error(`check.cjs: ${message}`);
  process.exit(1);
}

for (const name of ['@queueport/conformance', '@queueport/memory', '@queueport/core']) {
  const file = require.resolve(name);
  if (!file.startsWith(modules)) fail(`${name} resolved outside the scratch project: ${file}`);
  if (!file.endsWith('.cjs')) fail(`${name} resolved to ${file}, not the CommonJS build`);
  console.log(`require ${name} -> ${path.relative(process.cwd(), file)}`);
}

const { formatReport, runConformance, virtualTimeHarness } = require('@queueport/conformance');
const { MemoryDriver } = require('@queueport/memory');

async function main() {
  const harness = virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock }));
  const report = await runConformance(harness, { numRuns: 3, seed });
  const { passed, failed, skipped } = report.summary;
  console.log(
    `cjs virtualTimeHarness(memory): ${passed} passed, ${failed} failed, ${skipped} skipped (seed ${report.seed}, ${report.durationMs} ms)`,
  );
  if (failed === 0 && passed > 0) return true;
  console.error(formatReport(report));
  return false;
}

main().then(
  (ok) => {
    process.exitCode = ok ? 0 : 1;
  },
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
