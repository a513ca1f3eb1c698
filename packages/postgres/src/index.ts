export { SCHEMA_VERSION } from './migrations';
export { postgresQueueAdapter } from './postgres-adapter';
export { channelOf, POSTGRES_BATCH, PostgresDriver, type PostgresDriverOptions } from './postgres-driver';
export { DEFAULT_SCHEMA, type ParsedPostgresUrl, parsePostgresUrl, postgresUrls } from './postgres-url';
