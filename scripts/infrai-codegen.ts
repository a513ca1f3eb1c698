/**
 * Infrai's discovery → the committed snapshot (packages/infrai/schemas/discovery-snapshot.json)
 * and the request and response types generated from it (packages/infrai/src/generated/queue-types.ts).
 *
 *   pnpm infrai:codegen [--base-url URL]             read discovery, rewrite snapshot and types, say what changed
 *   pnpm infrai:codegen --check [--base-url URL]     exit 1 with the differences if discovery moved, 0 if not
 *   pnpm infrai:codegen --from-snapshot [--check]    types from the snapshot file alone (no network)
 *
 * Other options: --json (the result as JSON on stdout), --snapshot FILE and --types FILE (other
 * paths, for tests), --timeout MS. Progress goes to stderr. Exit 2: usage, network, or a
 * discovery that cannot be read.
 */
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compile } from 'json-schema-to-typescript';
// The discovery module itself, not the package's index: the codegen has to run while the adapter
// that consumes its output does not load (its generated types missing or stale).
import {
  checkDiscovery,
  DEFAULT_DISCOVERY_BASE_URL,
  DEFAULT_SNAPSHOT_COMMENT,
  type DiscoverySnapshot,
  diffSnapshots,
  driftReport,
  fetchDiscovery,
  formatDrift,
  type JsonSchema,
  serializeSnapshot,
  type UnavailableCapability,
} from '../packages/infrai/src/discovery/index';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SNAPSHOT_FILE = path.join(ROOT, 'packages/infrai/schemas/discovery-snapshot.json');
export const TYPES_FILE = path.join(ROOT, 'packages/infrai/src/generated/queue-types.ts');
const COMMAND = 'pnpm infrai:codegen';

const USAGE = `usage: ${COMMAND} [--base-url URL] [--check] [--json] [--timeout MS]
       ${COMMAND} --from-snapshot [--check] [--json]
  --base-url URL     where discovery is served (default ${DEFAULT_DISCOVERY_BASE_URL})
  --check            compare instead of writing: exit 1 when it differs, 0 when it matches
  --from-snapshot    generate the types from the snapshot file, without reading discovery
  --json             print the result as JSON
  --snapshot FILE    the snapshot file (default packages/infrai/schemas/discovery-snapshot.json)
  --types FILE       the generated types file (default packages/infrai/src/generated/queue-types.ts)
  --timeout MS       for reading all of discovery (default 15000)`;

export interface CodegenIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: CodegenIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
};

class UsageError extends Error {}

/** Runs the command; resolves to its exit code (it never throws and never calls process.exit). */
export async function runCodegen(argv: readonly string[], io: CodegenIo = processIo): Promise<number> {
  let json = argv.includes('--json');
  try {
    const options = parseOptions(argv);
    json = options.json;
    if (options.help) {
      io.stdout(USAGE);
      return 0;
    }
    const result = options.fromSnapshot ? await fromSnapshot(options, io) : await fromDiscovery(options, io);
    io.stdout(json ? JSON.stringify(result.json, null, 2) : result.lines.join('\n'));
    return result.exitCode;
  } catch (error) {
    const usage = error instanceof UsageError;
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    if (json) {
      io.stdout(
        JSON.stringify({ error: { ...(typeof code === 'string' ? { code } : {}), message, usage } }, null, 2),
      );
    } else {
      io.stderr(`infrai:codegen: ${message}`);
      if (usage) io.stderr(USAGE);
    }
    return 2;
  }
}

interface Options {
  baseUrl: string;
  check: boolean;
  json: boolean;
  fromSnapshot: boolean;
  snapshotFile: string;
  typesFile: string;
  timeoutMs: number | undefined;
  help: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        check: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'from-snapshot': { type: 'boolean', default: false },
        snapshot: { type: 'string' },
        types: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values['from-snapshot'] && values['base-url'] !== undefined) {
    throw new UsageError('--from-snapshot reads no discovery: it takes no --base-url');
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout);
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      throw new UsageError(`--timeout must be a positive number of milliseconds, not ${values.timeout}`);
    }
  }
  return {
    baseUrl: (values['base-url'] as string | undefined) ?? DEFAULT_DISCOVERY_BASE_URL,
    check: values.check === true,
    json: values.json === true,
    fromSnapshot: values['from-snapshot'] === true,
    snapshotFile: path.resolve((values.snapshot as string | undefined) ?? SNAPSHOT_FILE),
    typesFile: path.resolve((values.types as string | undefined) ?? TYPES_FILE),
    timeoutMs,
    help: values.help === true,
  };
}

interface Outcome {
  exitCode: number;
  lines: string[];
  json: Record<string, unknown>;
}

async function fromDiscovery(options: Options, io: CodegenIo): Promise<Outcome> {
  const committed = await readSnapshot(options.snapshotFile, !options.check);
  const fetchOptions = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  io.stderr(`infrai:codegen: reading discovery from ${options.baseUrl}`);

  if (options.check) {
    const check = await checkDiscovery(options.baseUrl, { ...fetchOptions, committed: committed! });
    const report = driftReport(check.differences);
    const lines = check.matches
      ? [
          `discovery at ${options.baseUrl} matches ${shown(options.snapshotFile)} ` +
            `(${Object.keys(check.served.capabilities).length} capabilities, discovery ${check.served.discovery_version})`,
        ]
      : [
          `discovery at ${options.baseUrl} differs from ${shown(options.snapshotFile)} ` +
            `(${plural(check.differences.length, 'difference')}):`,
          ...formatDrift(check.differences).map((line) => `  ${line}`),
        ];
    lines.push(...notes(check.unavailable, check.otherQueueCapabilities));
    if (!check.matches) {
      lines.push(
        'confirm the change against Infrai, then run `pnpm infrai:codegen` to update the snapshot and types',
      );
    }
    return {
      exitCode: check.matches ? 0 : 1,
      lines,
      json: {
        command: 'check',
        baseUrl: options.baseUrl,
        snapshotFile: shown(options.snapshotFile),
        ...report,
        unavailable: check.unavailable,
        otherQueueCapabilities: check.otherQueueCapabilities,
      },
    };
  }

  const served = await fetchDiscovery(options.baseUrl, fetchOptions);
  const before = committed ?? { snapshot: 1, discovery_version: '(none)', capabilities: {} };
  const differences = diffSnapshots(before, served.snapshot);
  const snapshotText = serializeSnapshot(served.snapshot, committed?.$comment ?? DEFAULT_SNAPSHOT_COMMENT);
  const snapshotChanged = await writeIfChanged(options.snapshotFile, snapshotText);
  const typesChanged = await writeIfChanged(options.typesFile, await generateQueueTypes(served.snapshot));
  const lines = [
    `${shown(options.snapshotFile)}: ${
      committed === undefined
        ? 'created'
        : snapshotChanged
          ? differences.length > 0
            ? `updated (${plural(differences.length, 'difference')})`
            : 'rewritten (layout only, no difference in content)'
          : 'unchanged'
    }`,
    ...(committed === undefined ? [] : formatDrift(differences).map((line) => `  ${line}`)),
    `${shown(options.typesFile)}: ${typesChanged ? 'updated' : 'unchanged'}`,
    ...notes(served.unavailable, served.otherQueueCapabilities),
  ];
  return {
    exitCode: 0,
    lines,
    json: {
      command: 'write',
      baseUrl: options.baseUrl,
      snapshot: {
        file: shown(options.snapshotFile),
        changed: snapshotChanged,
        created: committed === undefined,
      },
      types: { file: shown(options.typesFile), changed: typesChanged },
      ...driftReport(committed === undefined ? [] : differences),
      unavailable: served.unavailable,
      otherQueueCapabilities: served.otherQueueCapabilities,
    },
  };
}

async function fromSnapshot(options: Options, io: CodegenIo): Promise<Outcome> {
  const snapshot = (await readSnapshot(options.snapshotFile, false))!;
  io.stderr(`infrai:codegen: generating types from ${shown(options.snapshotFile)}`);
  const types = await generateQueueTypes(snapshot);
  const file = shown(options.typesFile);
  if (options.check) {
    const current = await readFile(options.typesFile, 'utf8').catch(() => undefined);
    const upToDate = current === types;
    return {
      exitCode: upToDate ? 0 : 1,
      lines: [
        upToDate
          ? `${file} is up to date with ${shown(options.snapshotFile)}`
          : `${file} is ${current === undefined ? 'missing' : 'stale'}: run \`${COMMAND} --from-snapshot\``,
      ],
      json: { command: 'check-types', snapshotFile: shown(options.snapshotFile), types: { file, upToDate } },
    };
  }
  const changed = await writeIfChanged(options.typesFile, types);
  return {
    exitCode: 0,
    lines: [`${file}: ${changed ? 'updated' : 'unchanged'} (from ${shown(options.snapshotFile)})`],
    json: { command: 'generate-types', snapshotFile: shown(options.snapshotFile), types: { file, changed } },
  };
}

function notes(unavailable: readonly UnavailableCapability[], others: readonly string[]): string[] {
  return [
    ...unavailable.map((u) => `unavailable: ${u.reason}`),
    ...(others.length > 0 ? [`served but not called by the adapter: ${others.join(', ')}`] : []),
  ];
}

/** The snapshot file, or undefined when it does not exist and `mayBeMissing` (the first run). */
async function readSnapshot(file: string, mayBeMissing: boolean): Promise<DiscoverySnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT' && mayBeMissing) return undefined;
    throw new Error(`cannot read the snapshot ${shown(file)}: ${(error as Error).message}`);
  }
  let snapshot: unknown;
  try {
    snapshot = JSON.parse(text);
  } catch (error) {
    throw new Error(`the snapshot ${shown(file)} is not JSON: ${(error as Error).message}`);
  }
  const s = snapshot as Partial<DiscoverySnapshot> | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    s.snapshot !== 1 ||
    typeof s.discovery_version !== 'string' ||
    typeof s.capabilities !== 'object' ||
    s.capabilities === null
  ) {
    throw new Error(`the snapshot ${shown(file)} is not a discovery snapshot (snapshot: 1, capabilities)`);
  }
  return s as DiscoverySnapshot;
}

async function writeIfChanged(file: string, text: string): Promise<boolean> {
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current === text) return false;
  await writeFile(file, text);
  return true;
}

function shown(file: string): string {
  const relative = path.relative(ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

// ---------------------------------------------------------------------------------------------
// Types.

/** `queue.publish_batch` → `QueuePublishBatch`, `queue.dlq.list` → `QueueDlqList`. */
export function pascalName(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The text of queue-types.ts for a snapshot: a `<Pascal>Request` and `<Pascal>Response` per
 * capability (sorted by id) and a map from id to both. The same snapshot always gives the same
 * bytes, formatted by the workspace's biome, so the file is lint-clean as generated.
 */
export async function generateQueueTypes(snapshot: DiscoverySnapshot): Promise<string> {
  const ids = Object.keys(snapshot.capabilities).sort();
  const blocks: string[] = [
    [
      '/**',
      ` * Generated by \`${COMMAND}\` (scripts/infrai-codegen.ts) with json-schema-to-typescript from`,
      ` * packages/infrai/schemas/discovery-snapshot.json (Infrai discovery ${snapshot.discovery_version}).`,
      ' * Do not edit: regenerate instead (`--from-snapshot` after editing the snapshot).',
      ' */',
    ].join('\n'),
  ];
  for (const id of ids) {
    const contract = snapshot.capabilities[id]!;
    const name = pascalName(id);
    const where = `${id} (${contract.method} ${contract.path})`;
    const note = contract.available ? '' : ' Discovery marks it unavailable.';
    const bodyless = contract.method === 'GET' || contract.method === 'DELETE';
    const sides = [
      ['Request', contract.request, bodyless ? 'path and query parameters' : 'request body'],
      ['Response', contract.response, "response: the envelope's `data`"],
    ] as const;
    for (const [suffix, schema, what] of sides) {
      const prepared = typingSchema(schema) as Record<string, unknown>;
      const own = typeof prepared.description === 'string' ? `\n\n${prepared.description}` : '';
      prepared.description = `${where} ${what}.${note}${own}`;
      blocks.push(
        await compile(prepared as Parameters<typeof compile>[0], `${name}${suffix}`, {
          bannerComment: '',
          format: false,
          unknownAny: true,
          ignoreMinAndMaxItems: true,
          additionalProperties: true,
          declareExternallyReferenced: false,
          $refOptions: { resolve: { external: false } },
        }),
      );
    }
  }
  blocks.push(
    [
      "/** Each capability's request and response types, by discovery id. */",
      'export interface QueueCapabilityTypes {',
      ...ids.map((id) => {
        const name = pascalName(id);
        return `  ${JSON.stringify(id)}: { request: ${name}Request; response: ${name}Response };`;
      }),
      '}',
      '',
      '/** A capability the snapshot holds, by discovery id: what `InfraiHttp.call` takes. */',
      'export type QueueCapabilityId = keyof QueueCapabilityTypes;',
      '/** What a capability is called with: the body, or for GET and DELETE the path and query parameters. */',
      "export type RequestOf<K extends QueueCapabilityId> = QueueCapabilityTypes[K]['request'];",
      "/** What a capability answers: the envelope's `data`. */",
      "export type ResponseOf<K extends QueueCapabilityId> = QueueCapabilityTypes[K]['response'];",
    ].join('\n'),
  );
  return biomeFormat(`${blocks.map((b) => b.trim()).join('\n\n')}\n`);
}

/** Keywords that shape a TypeScript type; the rest (bounds, patterns, formats) are checked at run time. */
const SUBSCHEMA = new Set(['items', 'additionalItems', 'additionalProperties']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'items']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties']);
const PLAIN = new Set(['type', 'required', 'enum', 'const', 'description', 'deprecated']);

/**
 * What json-schema-to-typescript is given: only typing keywords. Served schemas come from the
 * network, and the generator's own extensions (`tsType`, `tsEnumNames`, `$ref` to a URL) would
 * let them write code into our sources; `title` would name (and collide) types across capabilities.
 */
function typingSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (PLAIN.has(key)) {
      // A description ends up inside a /** */ block: `*/` in it would end the comment early.
      out[key] = key === 'description' && typeof value === 'string' ? value.replaceAll('*/', '*\\/') : value;
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map(typingSchema);
    } else if (SUBSCHEMA.has(key)) {
      out[key] = typingSchema(value);
    } else if (SUBSCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typingSchema(v)]));
    }
  }
  const closedAndEmpty =
    out.type === 'object' &&
    out.additionalProperties === false &&
    out.patternProperties === undefined &&
    Object.keys((out.properties as object | undefined) ?? {}).length === 0;
  // Otherwise `interface X {}` or `{}`: "anything but null" in TypeScript, and banned by biome.
  if (closedAndEmpty) out.tsType = 'Record<string, never>';
  return out;
}

/** The workspace's own formatter, so the generated file passes `biome check` as written. */
function biomeFormat(text: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  const result = spawnSync(
    process.execPath,
    [biome, 'format', `--stdin-file-path=${path.relative(ROOT, TYPES_FILE)}`],
    { cwd: ROOT, input: text, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0 || typeof result.stdout !== 'string' || result.stdout === '') {
    throw new Error(`biome could not format the generated types: ${result.stderr || result.error?.message}`);
  }
  return result.stdout;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await runCodegen(process.argv.slice(2));
}
