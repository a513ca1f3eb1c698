import type { TestProject } from 'vitest/node';
import { ensureServices } from './ensure-services';
import type { AllServiceInfo } from './types';

declare module 'vitest' {
  export interface ProvidedContext {
    queueportServices: AllServiceInfo;
  }
}

/**
 * Makes Redis, PostgreSQL, RabbitMQ and (when possible) an SQS-compatible server reachable before any
 * test runs. Test workers start after this, so they inherit the QUEUEPORT_* variables set here.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { services, summary, stop } = await ensureServices();
  if (!services.redisUrl || !services.postgresUrl || !services.rabbitmqUrl) {
    await stop();
    throw new Error('ensureServices returned without Redis, PostgreSQL or RabbitMQ');
  }
  process.env.QUEUEPORT_REDIS_URL = services.redisUrl;
  process.env.QUEUEPORT_POSTGRES_URL = services.postgresUrl;
  process.env.QUEUEPORT_RABBITMQ_URL = services.rabbitmqUrl;
  // Set only when it answers, so `if (process.env.QUEUEPORT_SQS_ENDPOINT)` is a reliable guard.
  if (services.sqsEndpoint) process.env.QUEUEPORT_SQS_ENDPOINT = services.sqsEndpoint;
  else delete process.env.QUEUEPORT_SQS_ENDPOINT;
  if (services.sqsServer) process.env.QUEUEPORT_SQS_SERVER = services.sqsServer;
  else delete process.env.QUEUEPORT_SQS_SERVER;
  if (services.s3Endpoint) process.env.QUEUEPORT_S3_ENDPOINT = services.s3Endpoint;
  else delete process.env.QUEUEPORT_S3_ENDPOINT;
  project.provide('queueportServices', {
    ...services,
    redisUrl: services.redisUrl,
    postgresUrl: services.postgresUrl,
    rabbitmqUrl: services.rabbitmqUrl,
  });
  for (const line of summary) process.stderr.write(`test services: ${line}\n`);
  return stop;
}
