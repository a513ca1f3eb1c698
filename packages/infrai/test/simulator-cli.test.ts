import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createInfraiAdapter } from '../src';
import { DEFAULT_SIMULATOR_API_KEY } from '../src/testing';
import { parseSimulatorArgs, startSimulatorFromArgs } from '../src/testing/simulator-cli';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

describe('infrai-simulator (the bin)', () => {
  it('starts on the port given, answers discovery and the queue it made, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        '--conditions=@queueport/source',
        '--import',
        'tsx',
        'src/testing/simulator-bin.ts',
        '--port',
        String(port),
        '--queue',
        'orders',
        '--json',
      ],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const deadline = Date.now() + 45_000;
    while (!stdout.includes('\n') && child.exitCode === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ready = JSON.parse(stdout.split('\n')[0]!) as { url: string; apiKey: string; queues: string[] };
    expect(ready).toEqual({
      url: `http://127.0.0.1:${port}`,
      apiKey: DEFAULT_SIMULATOR_API_KEY,
      queues: [`infrai://127.0.0.1:${port}/orders?tls=false`],
    });
    const discovery = await fetch(`${ready.url}/v1/discovery`);
    expect(discovery.status).toBe(200);
    expect(
      ((await discovery.json()) as { data: { capabilities: unknown[] } }).data.capabilities.length,
    ).toBeGreaterThan(0);
    // The queue it printed opens through the adapter with the key it printed.
    const driver = await createInfraiAdapter({ apiKey: ready.apiKey }).open(new URL(ready.queues[0]!), {});
    await driver.close();

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  }, 60_000);
});

describe('its arguments', () => {
  it('defaults to 127.0.0.1:4010 and the simulator’s test key', () => {
    expect(parseSimulatorArgs([])).toEqual({
      ok: true,
      port: 4010,
      host: '127.0.0.1',
      apiKey: DEFAULT_SIMULATOR_API_KEY,
      queues: [],
      json: false,
      help: false,
    });
    expect(parseSimulatorArgs(['--', '--port', '0', '--queue', 'a', '--queue', 'b'])).toMatchObject({
      ok: true,
      port: 0,
      queues: ['a', 'b'],
    });
  });

  it('refuses bad ones without echoing them', () => {
    for (const argv of [
      ['--port', '70000'],
      ['--port', 'x'],
      ['--prot', '1'],
      ['sk_secret_value'],
      ['--api-key', 'a b'],
    ]) {
      const parsed = parseSimulatorArgs(argv);
      expect(parsed.ok, argv.join(' ')).toBe(false);
      if (!parsed.ok) expect(parsed.message).not.toMatch(/sk_secret_value|prot|a b/);
    }
  });

  it('prints the base URL, the key and a URL per queue; a taken port is refused with EADDRINUSE', async () => {
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    const { simulator, queueUrls } = await startSimulatorFromArgs(
      { port: 0, host: '127.0.0.1', apiKey: 'ifr_drill_key', queues: ['orders'], json: false },
      io,
    );
    try {
      expect(lines[0]).toBe(`Infrai simulator on ${simulator.url}`);
      expect(lines.join('\n')).toContain('export INFRAI_API_KEY=ifr_drill_key');
      expect(lines.join('\n')).toContain(`queue: ${queueUrls[0]}`);
      const port = Number(new URL(simulator.url).port);
      await expect(
        startSimulatorFromArgs({ port, host: '127.0.0.1', apiKey: 'k', queues: [], json: true }, io),
      ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await simulator.close();
    }
  });
});
