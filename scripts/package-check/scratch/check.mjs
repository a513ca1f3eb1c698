// Copied into the scratch project by scripts/package-check/install-alone.ts and run there with
// plain `node check.mjs <seed>`: the packed packages as an ESM adapter author imports them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as conformance from '@queueport/conformance';
import * as memory from '@queueport/memory';

const seed = Number(process.argv[2]);
const modules = path.join(process.cwd(), 'node_modules') + path.sep;

function fail(message) {
  console.error(`check.mjs: ${message}`);
  process.exit(1);
}

for (const name of ['@queueport/conformance', '@queueport/memory', '@queueport/core']) {
  const file = fileURLToPath(import.meta.resolve(name));
  if (!file.startsWith(modules)) fail(`${name} resolved outside the scratch project: ${file}`);
  if (!file.endsWith('.js')) fail(`${name} resolved to ${file}, not the ESM build`);
  console.log(`import ${name} -> ${path.relative(process.cwd(), file)}`);
}
for (const [from, module, names] of [
  ['@queueport/conformance', conformance, ['runConformance', 'virtualTimeHarness', 'adapterHarness']],
  ['@queueport/memory', memory, ['MemoryDriver', 'memoryAdapter']],
]) {
  const missing = names.filter((name) => module[name] === undefined);
  if (missing.length > 0) fail(`${from} does not export ${missing.join(', ')}`);
}

const { adapterHarness, formatReport, runConformance, virtualTimeHarness } = conformance;
const { MemoryDriver, memoryAdapter } = memory;

async function suite(label, harness) {
  const report = await runConformance(harness, { numRuns: 3, seed });
  const { passed, failed, skipped } = report.summary;
  console.log(
    `${label}: ${passed} passed, ${failed} failed, ${skipped} skipped (seed ${report.seed}, ${report.durationMs} ms)`,
  );
  if (failed === 0 && passed > 0) return true;
  console.error(formatReport(report));
  return false;
}

const results = [
  await suite(
    'esm virtualTimeHarness(memory)',
    virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
  ),
  await suite(
    'esm adapterHarness(memoryAdapter)',
    adapterHarness(memoryAdapter, 'memory://?nativeMaxDelaySeconds=900'),
  ),
];
process.exitCode = results.every(Boolean) ? 0 : 1;
