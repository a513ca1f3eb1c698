import { AdapterRegistry } from '@queueport/core';
import { expect, it } from 'vitest';
import { postgresQueueAdapter, SCHEMA_VERSION } from '../src';
import { schemasPerFile, withClient } from './support/postgres';

const schemas = schemasPerFile('migration');
const registry = new AdapterRegistry([postgresQueueAdapter]);

const versions = (schema: string) =>
  withClient(async (client) => {
    const { rows } = await client.query(
      `SELECT version, applied_at FROM "${schema}".queue_schema_migrations ORDER BY version`,
    );
    return rows.map((row) => ({
      version: Number(row.version),
      appliedAt: (row.applied_at as Date).toISOString(),
    }));
  });

it('creates the schema once when several processes open it at the same moment', async () => {
  const { schema, providerUrl } = schemas.next();
  // Each admin opens a pool of its own, so these are separate sessions racing for the lock.
  const admins = await Promise.all(Array.from({ length: 6 }, () => registry.openAdmin(providerUrl)));
  await Promise.all(admins.map((admin) => admin.close()));
  const applied = await versions(schema);
  expect(applied.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));

  // Opening a schema at the current version applies nothing and changes nothing.
  const admin = await registry.openAdmin(providerUrl);
  const url = await admin.createQueue({ name: 'orders' });
  const queue = await registry.openQueue(url);
  await queue.close();
  await admin.close();
  expect(await versions(schema)).toEqual(applied);
});

it('refuses a schema a newer release migrated, without touching it', async () => {
  const { schema, providerUrl } = schemas.next();
  await (await registry.openAdmin(providerUrl)).close();
  await withClient((client) =>
    client.query(`INSERT INTO "${schema}".queue_schema_migrations (version) VALUES (99)`),
  );
  await expect(registry.openAdmin(providerUrl)).rejects.toMatchObject({
    code: 'INTERNAL',
    message: expect.stringContaining('version 99'),
  });
});

it('opens into an existing schema it did not create (a role without CREATE on the database)', async () => {
  const { schema, providerUrl } = schemas.next();
  await withClient((client) => client.query(`CREATE SCHEMA "${schema}"`));
  const admin = await registry.openAdmin(providerUrl);
  await admin.close();
  expect((await versions(schema)).length).toBe(SCHEMA_VERSION);
});
