import path from 'node:path';
import type { AdapterDefinition } from '@queueport/core/driver';
import type { DiscoverySnapshot } from '@queueport/infrai';
import {
  DEFAULT_SIMULATOR_API_KEY,
  type InfraiSimulator,
  startInfraiSimulator,
} from '@queueport/infrai/testing';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import {
  type ReferenceReceiver,
  type ReferenceReceiverOptions,
  startReferenceReceiver,
} from '@queueport/webhook/reference-receiver';
import type { LoadedConfig, ProviderConfig, ReceiverConfig } from '../../src/config/config-types';
import { type CliCommandContext, createCommandContext } from '../../src/context';
import { drillCommand } from '../../src/drill';
import type { CheckResult, CommandReport } from '../../src/report/report-types';
import { type CapturedIo, tempDir, testIo } from './test-io';

/** The variable the drills' infrai:// URLs name for their key, as a configuration would. */
export const KEY_ENV = 'DRILL_TEST_INFRAI_KEY';

/**
 * What a drill runs against, started in this process for one test: Infrai simulators (each
 * with its own keys or discovery), a reference receiver and a SQLite ledger in a temp folder.
 * Everything it starts is stopped by `close()`.
 */
export interface DrillWorld {
  dir: string;
  receiver: ReferenceReceiver;
  /** An infrai:// URL of a queue `drill` on a simulator started with these options. */
  infrai(
    options?: Parameters<typeof startInfraiSimulator>[0],
  ): Promise<{ url: string; simulator: InfraiSimulator }>;
  /** The drill on these providers, through the CLI's own context, on a configuration given as it is. */
  drill(
    providers: Record<string, string>,
    argv?: readonly string[],
    overrides?: {
      receiver?: ReceiverConfig | undefined;
      env?: Record<string, string>;
      /** Adapters of the test's own, as a program passes them. */
      adapters?: readonly AdapterDefinition[];
    },
  ): Promise<{ report: CommandReport; io: CapturedIo }>;
  /** The ledger the drills wrote, opened again. */
  ledger(): Promise<Ledger>;
  close(): Promise<void>;
}

export async function startDrillWorld(
  receiverOptions: Partial<ReferenceReceiverOptions> = {},
): Promise<DrillWorld> {
  const stops: (() => Promise<unknown>)[] = [];
  const folder = await tempDir();
  stops.push(folder.remove);
  const receiver = await startReferenceReceiver({ mode: 'idempotent', ...receiverOptions });
  stops.push(() => receiver.close());
  const ledgerFile = path.join(folder.dir, 'ledger.db');

  return {
    dir: folder.dir,
    receiver,
    async infrai(options = {}) {
      const simulator = await startInfraiSimulator(options);
      stops.push(() => simulator.close());
      // The queue is created with the simulator's own key: whatever key the drill then uses.
      const { createInfraiAdapter } = await import('@queueport/infrai');
      const host = new URL(simulator.url).host;
      const admin = await createInfraiAdapter({ apiKey: simulator.apiKey }).admin!(
        new URL(`infrai://${host}?tls=false`),
        {},
      );
      await admin.createQueue({ name: 'drill' }).finally(() => admin.close());
      return { url: `infrai://${host}/drill?tls=false&keyEnv=${KEY_ENV}`, simulator };
    },
    async drill(providers, argv = ['--skip-conformance'], overrides = {}) {
      const loaded: LoadedConfig = {
        config: {
          providers: Object.fromEntries(
            Object.entries(providers).map(([name, url]): [string, ProviderConfig] => [name, { url }]),
          ),
          ledger: { sqlite: ledgerFile },
          ...('receiver' in overrides
            ? overrides.receiver
              ? { receiver: overrides.receiver }
              : {}
            : { receiver: { url: receiver.url, allowInsecure: true } }),
        },
        // A configuration of the test's, not the embedded defaults.
        file: path.join(folder.dir, 'queueport.config.json'),
        close: async () => {},
      };
      const io = testIo({ env: { [KEY_ENV]: DEFAULT_SIMULATOR_API_KEY, ...overrides.env }, cwd: folder.dir });
      const context: CliCommandContext = createCommandContext(io, {
        loaded,
        ...(overrides.adapters ? { adapters: overrides.adapters } : {}),
      });
      try {
        return { report: await drillCommand.run(argv, context), io };
      } finally {
        await context.close();
      }
    },
    ledger: () => openSqliteLedger({ filename: ledgerFile }),
    async close() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

/** One check of a report, by provider and id; fails the test when there is none. */
export function checkOf(report: CommandReport, provider: string, id: string): CheckResult {
  const found = report.checks.find((check) => check.provider === provider && check.id === id);
  if (!found)
    throw new Error(`no check ${id} for ${provider} in ${JSON.stringify(report.checks.map((c) => c.id))}`);
  return found;
}

/** A discovery Infrai might serve tomorrow: a field's type changed and a field added. */
export function driftedDiscovery(snapshot: DiscoverySnapshot): DiscoverySnapshot {
  const publish = snapshot.capabilities['queue.publish']!;
  const request = publish.request as { properties: Record<string, unknown> };
  request.properties.priority = { type: 'string', enum: ['low', 'normal', 'high'] };
  request.properties.expires_at = { type: 'string', format: 'date-time' };
  return snapshot;
}

/**
 * memory:// under another scheme, with a driver that drops every attribute on the way back: the
 * canary (which sends none) gets through, and the conformance suite's round trip does not.
 */
export async function attributeDroppingAdapter(): Promise<AdapterDefinition> {
  const { memoryAdapter } = await import('@queueport/memory');
  const toMemory = (url: string) => url.replace(/^lossy:/, 'memory:');
  return {
    scheme: 'lossy',
    packageName: 'attribute-dropping-test-adapter',
    virtualClock: true,
    async open(url, context) {
      const driver = await memoryAdapter.open(new URL(toMemory(url.href)), context);
      return {
        ...driver,
        receive: async (request) =>
          (await driver.receive(request)).map((message) => ({ ...message, attributes: {} })),
      };
    },
    async admin(url, context) {
      const admin = await memoryAdapter.admin!(new URL(toMemory(url.href)), context);
      return {
        createQueue: async (request) => (await admin.createQueue(request)).replace(/^memory:/, 'lossy:'),
        deleteQueue: (queue) => admin.deleteQueue(toMemory(queue)),
        stats: (queue) => admin.stats(toMemory(queue)),
        close: () => admin.close(),
      };
    },
  };
}
