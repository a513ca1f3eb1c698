// What the adapter imports only when it opens a driver or an admin: everything here uses
// BullMQ or ioredis, the package's peers.
export { bullmqAdmin } from './bullmq-admin';
export { BullmqDriver } from './bullmq-driver';
export { openRedis } from './redis-connection';
