import { execFile } from 'node:child_process';
import { appendFile, copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type CodegenIo,
  generateQueueTypes,
  pascalName,
  runCodegen,
  SNAPSHOT_FILE,
  TYPES_FILE,
} from '../../../scripts/infrai-codegen';
import {
  type CapabilityContract,
  DEFAULT_SNAPSHOT_COMMENT,
  type DiscoverySnapshot,
  SNAPSHOT,
  servedFromContract,
} from '../src/discovery';
import { startInfraiSimulator } from '../src/testing';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: the tests reach deep into plain JSON schemas to change them
type Schema = Record<string, any>;
type Contracts = Record<string, { -readonly [K in keyof CapabilityContract]: CapabilityContract[K] }>;

// ---------------------------------------------------------------------------------------------
// Discovery served by the test itself: servedFromContract of every entry of a snapshot.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Serves `change` applied to a copy of the committed snapshot (a capability it deletes is not listed). */
async function serveDiscovery(
  change: (capabilities: Contracts) => void = () => {},
  malformed = false,
): Promise<string> {
  const snapshot = structuredClone(SNAPSHOT) as DiscoverySnapshot & { capabilities: Contracts };
  change(snapshot.capabilities);
  const index = {
    version: snapshot.discovery_version,
    generated_at: '2025-01-01T00:00:00Z',
    capabilities: Object.entries(snapshot.capabilities).map(([id, c]) => servedFromContract(id, c).entry),
  };
  const server = createServer((req, res) => {
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { ok: true, data, error: null, metadata: {} } : data));
    };
    if (req.url === '/v1/discovery') return send(200, malformed ? { version: 'v1' } : index);
    const id = decodeURIComponent((req.url ?? '').replace('/v1/discovery/', ''));
    const contract = Object.hasOwn(snapshot.capabilities, id) ? snapshot.capabilities[id] : undefined;
    if (contract) return send(200, servedFromContract(id, contract).detail);
    send(404, { ok: false, data: null, error: { code: 'NOT_FOUND', message: `no ${id}` } });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function request(capabilities: Contracts, id: string): Schema {
  return capabilities[id]!.request as Schema;
}

/** runCodegen in this process, its output captured. */
async function codegen(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CodegenIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
  const code = await runCodegen(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** The real command, in its own process, as CI and people run it. */
async function command(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ['--conditions=@queueport/source', '--import', 'tsx', 'scripts/infrai-codegen.ts', ...argv];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let scratch: string;
let snapshotCopy: string;
let typesCopy: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'infrai-codegen-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
let round = 0;
/** Fresh copies of the committed snapshot and types for a run to rewrite. */
async function copies(): Promise<void> {
  round++;
  snapshotCopy = path.join(scratch, `snapshot-${round}.json`);
  typesCopy = path.join(scratch, `queue-types-${round}.ts`);
  await copyFile(SNAPSHOT_FILE, snapshotCopy);
  await copyFile(TYPES_FILE, typesCopy);
}
const onCopies = () => ['--snapshot', snapshotCopy, '--types', typesCopy];

// ---------------------------------------------------------------------------------------------

describe('the committed generated types', () => {
  it('are what the committed snapshot generates', async () => {
    const result = await codegen('--from-snapshot', '--check');
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toBe(
      'packages/infrai/src/generated/queue-types.ts is up to date with packages/infrai/schemas/discovery-snapshot.json',
    );
  });

  it('name one Request and one Response per capability, under a generated-by header', async () => {
    const text = await readFile(TYPES_FILE, 'utf8');
    expect(text.startsWith('/**\n * Generated by `pnpm infrai:codegen` (scripts/infrai-codegen.ts)')).toBe(
      true,
    );
    expect(pascalName('queue.publish_batch')).toBe('QueuePublishBatch');
    expect(pascalName('queue.dlq.list')).toBe('QueueDlqList');
    for (const id of Object.keys(SNAPSHOT.capabilities)) {
      expect(text).toMatch(new RegExp(`export (interface|type) ${pascalName(id)}Request\\b`));
      expect(text).toMatch(new RegExp(`export (interface|type) ${pascalName(id)}Response\\b`));
    }
    expect(text).toContain('export interface QueuePublishBatchRequest {');
    expect(text).toContain('export interface QueueDlqListRequest {');
    // A closed object without fields: not `{}` (anything but null), which biome also bans.
    expect(text).toContain('export type QueueListRequest = Record<string, never>;');
  });

  it('pass biome as generated', async () => {
    const biome = path.join(ROOT, 'node_modules/@biomejs/biome/bin/biome');
    // A finding exits non-zero, which rejects; the summary goes to either stream.
    const { stdout, stderr } = await run(
      process.execPath,
      [biome, 'check', path.relative(ROOT, TYPES_FILE)],
      {
        cwd: ROOT,
      },
    );
    expect(`${stdout}${stderr}`).toContain('Checked 1 file');
  });

  it('--check notices stale types', async () => {
    await copies();
    await appendFile(typesCopy, '// edited by hand\n');
    const result = await codegen('--from-snapshot', '--check', ...onCopies());
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('is stale: run `pnpm infrai:codegen --from-snapshot`');
    expect((await codegen('--from-snapshot', ...onCopies())).stdout).toContain(': updated (from ');
    expect((await codegen('--from-snapshot', '--check', ...onCopies())).code).toBe(0);
  });
});

describe('generateQueueTypes', () => {
  it('gives served schemas no way to write code into our sources', async () => {
    const hostile: DiscoverySnapshot = {
      snapshot: 1,
      discovery_version: 'v1',
      capabilities: {
        'queue.ack': {
          ...SNAPSHOT.capabilities['queue.ack']!,
          request: {
            type: 'object',
            title: 'Queue',
            description: 'ends the comment */ export const pwned = 1; /*',
            properties: {
              queue: { type: 'string', tsType: 'string; export const injected = 2' },
              mode: { enum: ["a'; export const quoted = 3; '"] },
              ref: { $ref: 'https://evil.example/schema.json' },
            },
          },
        },
      },
    };
    const text = await generateQueueTypes(hostile);
    expect(text).not.toMatch(/^export const/m);
    expect(text).toContain('ends the comment *\\/ export const pwned = 1; /*');
    expect(text).toContain('export interface QueueAckRequest {');
    expect(text).not.toContain('interface Queue {');
  });

  it('is deterministic', async () => {
    expect(await generateQueueTypes(SNAPSHOT)).toBe(await generateQueueTypes(structuredClone(SNAPSHOT)));
  });
});

describe('pnpm infrai:codegen against served discovery', () => {
  it('is idempotent: discovery serving the snapshot rewrites the same snapshot and types', async () => {
    await copies();
    const url = await serveDiscovery();
    const result = await codegen('--base-url', url, ...onCopies());
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((l) => l.replace(scratch, '<tmp>'))).toEqual([
      `<tmp>/snapshot-${round}.json: unchanged`,
      `<tmp>/queue-types-${round}.ts: unchanged`,
    ]);
    expect(result.stderr).toBe(`infrai:codegen: reading discovery from ${url}`);
    expect(await readFile(snapshotCopy, 'utf8')).toBe(await readFile(SNAPSHOT_FILE, 'utf8'));
    expect(await readFile(typesCopy, 'utf8')).toBe(await readFile(TYPES_FILE, 'utf8'));
  });

  it('writes the same files from nothing (a first run)', async () => {
    expect(SNAPSHOT.$comment).toBe(DEFAULT_SNAPSHOT_COMMENT);
    const url = await serveDiscovery();
    const snapshotFile = path.join(scratch, 'first-run.json');
    const typesFile = path.join(scratch, 'first-run.ts');
    const result = await codegen('--base-url', url, '--snapshot', snapshotFile, '--types', typesFile);
    expect(result.stdout).toContain('first-run.json: created');
    expect(await readFile(snapshotFile, 'utf8')).toBe(await readFile(SNAPSHOT_FILE, 'utf8'));
    expect(await readFile(typesFile, 'utf8')).toBe(await readFile(TYPES_FILE, 'utf8'));
  });

  it('--check passes when discovery matches', async () => {
    const url = await serveDiscovery();
    const result = await codegen('--check', '--base-url', url);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `discovery at ${url} matches packages/infrai/schemas/discovery-snapshot.json (10 capabilities, discovery v1)`,
    );
  });

  const drifts: Array<[string, (c: Contracts) => void, string[]]> = [
    [
      'a field removed',
      (c) => delete request(c, 'queue.publish_batch').properties.messages.items.properties.delay_seconds,
      ['queue.publish_batch request messages[].delay_seconds: field removed (was integer, optional)'],
    ],
    [
      'a type changed',
      (c) => {
        request(c, 'queue.publish').properties.delay_seconds.type = 'string';
      },
      ['queue.publish request delay_seconds: type changed integer → string'],
    ],
    [
      'a field made required',
      (c) => request(c, 'queue.consume').required.push('visibility_timeout'),
      ['queue.consume request visibility_timeout: now required (was optional)'],
    ],
    [
      'a capability made unavailable',
      (c) => {
        c['queue.nack']!.available = false;
      },
      [
        'queue.nack: now unavailable (was available)',
        'unavailable: queue.nack: listed with available: false',
      ],
    ],
    [
      'a capability missing',
      (c) => delete c['queue.dlq.redrive'],
      [
        'queue.dlq.redrive: capability removed (in the snapshot, not served)',
        "unavailable: queue.dlq.redrive: not listed in Infrai's discovery index",
      ],
    ],
  ];
  for (const [name, change, expected] of drifts) {
    it(`--check fails with the difference: ${name}`, async () => {
      const url = await serveDiscovery(change);
      const result = await codegen('--check', '--base-url', url);
      expect(result.code).toBe(1);
      const differences = expected.filter((l) => !l.startsWith('unavailable: '));
      expect(result.stdout.split('\n')).toEqual([
        `discovery at ${url} differs from packages/infrai/schemas/discovery-snapshot.json (1 difference):`,
        ...differences.map((l) => `  ${l}`),
        ...expected.filter((l) => l.startsWith('unavailable: ')),
        'confirm the change against Infrai, then run `pnpm infrai:codegen` to update the snapshot and types',
      ]);
    });
  }

  it('--check --json prints the result as JSON', async () => {
    const url = await serveDiscovery((c) => {
      request(c, 'queue.publish').required.push('idempotency_key');
      c['queue.nack']!.available = false;
    });
    const result = await codegen('--check', '--json', '--base-url', url);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      command: 'check',
      baseUrl: url,
      snapshotFile: 'packages/infrai/schemas/discovery-snapshot.json',
      matches: false,
      count: 2,
      differences: [
        {
          kind: 'availability-changed',
          capability: 'queue.nack',
          from: true,
          to: false,
          location: 'queue.nack',
          message: 'now unavailable (was available)',
        },
        {
          kind: 'required-changed',
          capability: 'queue.publish',
          schema: 'request',
          field: 'idempotency_key',
          from: false,
          to: true,
          location: 'queue.publish request idempotency_key',
          message: 'now required (was optional)',
        },
      ],
      unavailable: [
        { id: 'queue.nack', kind: 'unavailable', reason: 'queue.nack: listed with available: false' },
      ],
      otherQueueCapabilities: [],
    });
  });

  it('without --check, writes the served contract, says what changed, and then matches', async () => {
    await copies();
    const url = await serveDiscovery((c) => {
      delete request(c, 'queue.publish').properties.priority;
      request(c, 'queue.publish').properties.delay_seconds.maximum = 86_400;
    });
    const result = await codegen('--base-url', url, ...onCopies());
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((l) => l.replace(scratch, '<tmp>'))).toEqual([
      `<tmp>/snapshot-${round}.json: updated (2 differences)`,
      '  queue.publish request delay_seconds: maximum changed 604800 → 86400',
      '  queue.publish request priority: field removed (was integer, optional)',
      `<tmp>/queue-types-${round}.ts: updated`,
    ]);
    const written = JSON.parse(await readFile(snapshotCopy, 'utf8')) as DiscoverySnapshot;
    expect(written.$comment).toBe(SNAPSHOT.$comment);
    expect((written.capabilities['queue.publish']!.request as Schema).properties.priority).toBeUndefined();
    const types = await readFile(typesCopy, 'utf8');
    const publish = types.slice(types.indexOf('export interface QueuePublishRequest {'));
    expect(publish.slice(0, publish.indexOf('}'))).not.toContain('priority');
    expect((await codegen('--check', '--base-url', url, ...onCopies())).code).toBe(0);
    expect((await codegen('--from-snapshot', '--check', ...onCopies())).code).toBe(0);
  });
});

describe('pnpm infrai:codegen: usage and failures exit 2', () => {
  it('an unknown option, or --from-snapshot with a base URL', async () => {
    const unknown = await codegen('--chek');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("infrai:codegen: Unknown option '--chek'");
    expect(unknown.stderr).toContain('usage: pnpm infrai:codegen');
    const both = await codegen('--from-snapshot', '--base-url', 'http://127.0.0.1:1');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--from-snapshot reads no discovery');
  });

  it('nobody serving discovery', async () => {
    const url = await serveDiscovery();
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    const result = await codegen('--check', '--base-url', url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `infrai:codegen: Infrai discovery at ${url}/v1/discovery: provider unreachable (ECONNREFUSED)`,
    );
    const json = await codegen('--check', '--json', '--base-url', url);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'UNAVAILABLE', usage: false });
  });

  it('a discovery it cannot read', async () => {
    const url = await serveDiscovery(undefined, true);
    const result = await codegen('--check', '--base-url', url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "the discovery index is not what this package reads: (document) must have required property 'capabilities'",
    );
  });
});

describe('the command in its own process', () => {
  it('exits 0, 1 and 2', async () => {
    const url = await serveDiscovery();
    const matching = await command('--check', '--base-url', url);
    expect(matching.code).toBe(0);
    expect(matching.stdout).toContain('matches');
    expect(matching.stderr).toContain(`reading discovery from ${url}`);

    const drifted = await command(
      '--check',
      '--base-url',
      await serveDiscovery((c) => delete c['queue.ack']),
    );
    expect(drifted.code).toBe(1);
    expect(drifted.stdout).toContain('  queue.ack: capability removed (in the snapshot, not served)');

    const usage = await command('--base-url');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Option '--base-url <value>' argument missing");
  });
});

describe('against the simulator', () => {
  it('--check passes, and fails with a readable difference after a mutation', async () => {
    const simulator = await startInfraiSimulator();
    try {
      const result = await codegen('--check', '--base-url', simulator.url);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('matches');
    } finally {
      await simulator.close();
    }
    const drifted = await startInfraiSimulator({
      discovery: (snapshot) => {
        const capabilities = snapshot.capabilities as Contracts;
        request(capabilities, 'queue.publish').properties.delay_seconds.maximum = 900;
        return snapshot;
      },
    });
    try {
      const result = await codegen('--check', '--base-url', drifted.url);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('  queue.publish request delay_seconds: maximum changed 604800 → 900');
    } finally {
      await drifted.close();
    }
  });
});
