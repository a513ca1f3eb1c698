import { describe, expect, inject, it } from 'vitest';
import { exchange } from './ports';
import { parsePostgresUrl, postgresLoginCheck } from './postgres-protocol';
import { redisPing } from './redis';
import { sqsListQueues } from './sqs-probe';

const services = inject('queueportServices');

describe('test services from the global setup', () => {
  it('Redis answers PING with PONG', async () => {
    // redisPing authenticates first when the URL carries a password, and insists on +PONG.
    await expect(redisPing(services.redisUrl)).resolves.toBeUndefined();
  });

  it('PostgreSQL answers an SSLRequest and admits the URL role into its database', async () => {
    const target = parsePostgresUrl(services.postgresUrl);
    const sslRequest = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
    const answer = await exchange({
      ...target,
      send: sslRequest,
      complete: (received) => received.length >= 1,
    });
    expect(['S', 'N']).toContain(answer.toString('latin1', 0, 1));
    await expect(postgresLoginCheck(target)).resolves.toBeUndefined();
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
    expect(process.env.QUEUEPORT_SQS_ENDPOINT).toBe(services.sqsEndpoint);
  });
});
