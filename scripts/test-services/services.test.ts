import { describe, expect, inject, it } from 'vitest';
import { postgresUsable } from './postgres';
import { rabbitmqUsable } from './rabbitmq';
import { redisPing } from './redis';
import { sqsListQueues } from './sqs-probe';

const services = inject('queueportServices');

describe('test services from the global setup', () => {
  it('Redis answers PING with PONG', async () => {
    // redisPing authenticates first when the URL carries a password, and insists on PONG.
    await expect(redisPing(services.redisUrl)).resolves.toBeUndefined();
  });

  it('PostgreSQL admits the URL role into its database and runs a query', async () => {
    await expect(postgresUsable(services.postgresUrl)).resolves.toBeUndefined();
  });

  it('RabbitMQ admits the URL user and opens a channel', async () => {
    await expect(rabbitmqUsable(services.rabbitmqUrl)).resolves.toBeUndefined();
  });

  it('the SQS endpoint answers ListQueues', async (ctx) => {
    if (!services.sqsEndpoint) {
      ctx.skip(`no SQS-compatible server: ${services.sqsUnavailable ?? 'not provided'}`);
      return;
    }
    const { status, body } = await sqsListQueues(services.sqsEndpoint);
    expect(status).toBe(200);
    const parsed = JSON.parse(body) as { QueueUrls?: unknown };
    expect(parsed.QueueUrls === undefined || Array.isArray(parsed.QueueUrls)).toBe(true);
  });

  it('test workers inherit the QUEUEPORT_* variables', () => {
    expect(process.env.QUEUEPORT_REDIS_URL).toBe(services.redisUrl);
    expect(process.env.QUEUEPORT_POSTGRES_URL).toBe(services.postgresUrl);
    expect(process.env.QUEUEPORT_RABBITMQ_URL).toBe(services.rabbitmqUrl);
    expect(process.env.QUEUEPORT_SQS_ENDPOINT).toBe(services.sqsEndpoint);
  });
});
