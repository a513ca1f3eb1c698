import { messageOf } from './errors';
import { ensurePostgres } from './postgres';
import { ensureRabbitmq } from './rabbitmq';
import { redactUrl } from './redact';
import { ensureRedis } from './redis';
import { ensureSqs } from './sqs';
import { ALL_SERVICES, type Ensured, type Log, type ServiceInfo, type ServiceName } from './types';

export interface EnsureOptions {
  need?: readonly ServiceName[];
  log?: Log;
  /** Where to read the QUEUEPORT_* variables; process.env by default. */
  env?: NodeJS.ProcessEnv;
}

export interface ServicesHandle {
  services: ServiceInfo;
  /** One short line per service asked for, passwords hidden. */
  summary: string[];
  /** Stops exactly what ensureServices started; services found running are left alone. */
  stop(): Promise<void>;
}

/**
 * QUEUEPORT_*_PROBE_PORT moves (or, with 0, skips) the check for an already running server,
 * which is how the start-our-own path can be exercised on a machine that has one.
 */
function probePort(value: string | undefined, standard: number): number | undefined {
  if (value === undefined || value === '') return standard;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid probe port ${value}`);
  return port === 0 ? undefined : port;
}

function fulfilledValue<T>(result: PromiseSettledResult<T>): T | undefined {
  return result.status === 'fulfilled' ? result.value : undefined;
}

export async function ensureServices(options: EnsureOptions = {}): Promise<ServicesHandle> {
  const need = new Set(options.need ?? ALL_SERVICES);
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const redisProbe = probePort(env.QUEUEPORT_REDIS_PROBE_PORT, 6379);
  const postgresProbe = probePort(env.QUEUEPORT_POSTGRES_PROBE_PORT, 5432);
  const rabbitmqProbe = probePort(env.QUEUEPORT_RABBITMQ_PROBE_PORT, 5672);

  // In parallel: moto_server alone takes seconds to boot.
  const [redis, postgres, sqs, rabbitmq] = await Promise.allSettled([
    need.has('redis')
      ? ensureRedis({ override: env.QUEUEPORT_REDIS_URL || undefined, probePort: redisProbe, log })
      : undefined,
    need.has('postgres')
      ? ensurePostgres({ override: env.QUEUEPORT_POSTGRES_URL || undefined, probePort: postgresProbe, log })
      : undefined,
    need.has('sqs')
      ? ensureSqs({
          override: env.QUEUEPORT_SQS_ENDPOINT || undefined,
          ...(env.QUEUEPORT_SQS_SERVER === 'local-aws-sqs' ? { prefer: 'local-aws-sqs' as const } : {}),
          log,
        })
      : undefined,
    need.has('rabbitmq')
      ? ensureRabbitmq({ override: env.QUEUEPORT_RABBITMQ_URL || undefined, probePort: rabbitmqProbe, log })
      : undefined,
  ]);

  const sqsOutcome =
    sqs.status === 'fulfilled' ? sqs.value : { unavailable: messageOf(sqs.reason), notes: [] };
  const sqsInfo = sqsOutcome && 'url' in sqsOutcome ? sqsOutcome : undefined;
  const redisInfo = fulfilledValue(redis);
  const postgresInfo = fulfilledValue(postgres);
  const rabbitmqInfo = fulfilledValue(rabbitmq);
  const ensured = [redisInfo, postgresInfo, rabbitmqInfo, sqsInfo].filter(
    (info): info is Ensured => info !== undefined,
  );
  const stop = async () => {
    await Promise.allSettled(ensured.map((info) => info.stop()));
  };

  const failures: string[] = [];
  if (redis.status === 'rejected') failures.push(`redis: ${messageOf(redis.reason)}`);
  if (postgres.status === 'rejected') failures.push(`postgres: ${messageOf(postgres.reason)}`);
  if (rabbitmq.status === 'rejected') failures.push(`rabbitmq: ${messageOf(rabbitmq.reason)}`);
  if (failures.length > 0) {
    await stop();
    throw new Error(`test services unavailable:\n${failures.join('\n')}`);
  }

  // Only defined keys: vitest's provide() must be able to serialise this as plain data.
  const services: ServiceInfo = {
    notes: [redisInfo, postgresInfo, rabbitmqInfo, sqsOutcome].flatMap((o) => o?.notes ?? []),
  };
  if (redisInfo) services.redisUrl = redisInfo.url;
  if (postgresInfo) services.postgresUrl = postgresInfo.url;
  if (rabbitmqInfo) services.rabbitmqUrl = rabbitmqInfo.url;
  if (sqsInfo) {
    services.sqsEndpoint = sqsInfo.url;
    services.sqsServer = sqsInfo.how.includes('moto')
      ? 'moto'
      : sqsInfo.how.includes('local-aws-sqs')
        ? 'local-aws-sqs'
        : 'external';
  }
  if (sqsOutcome && 'unavailable' in sqsOutcome) services.sqsUnavailable = sqsOutcome.unavailable;
  const s3 = s3Of(env, services);
  if ('url' in s3) services.s3Endpoint = s3.url;
  else services.s3Unavailable = s3.unavailable;

  const summary = (
    [
      ['redis', redisInfo],
      ['postgres', postgresInfo],
      ['rabbitmq', rabbitmqInfo],
      ['sqs', sqsInfo],
    ] as const
  ).flatMap(([name, info]) => (info ? [`${name} ${redactUrl(info.url)} (${info.how})`] : []));
  if (services.sqsUnavailable) summary.push(`sqs unavailable: ${services.sqsUnavailable.split('\n')[0]}`);
  if (services.s3Endpoint) summary.push(`s3 ${redactUrl(services.s3Endpoint)} (${s3Source(env)})`);
  else if (need.has('sqs') && services.s3Unavailable)
    summary.push(`s3 unavailable: ${services.s3Unavailable}`);
  return { services, summary, stop };
}

/**
 * S3 comes from the moto_server started for SQS (one server, every AWS service), or from
 * QUEUEPORT_S3_ENDPOINT. No npm S3 server is kept up well enough to fall back on (s3rver, the
 * one there is, last released in 2021), so without moto the S3 tests say so and skip.
 */
function s3Of(env: NodeJS.ProcessEnv, services: ServiceInfo): { url: string } | { unavailable: string } {
  if (env.QUEUEPORT_S3_ENDPOINT) return { url: env.QUEUEPORT_S3_ENDPOINT };
  if (services.sqsEndpoint && services.sqsServer === 'moto') return { url: services.sqsEndpoint };
  const why = services.sqsEndpoint
    ? `the SQS server is ${services.sqsServer}, which serves no S3`
    : (services.sqsUnavailable?.split('\n')[0] ?? 'SQS was not asked for');
  return {
    unavailable: `S3 comes from moto_server (or QUEUEPORT_S3_ENDPOINT), and there is none: ${why}`,
  };
}

function s3Source(env: NodeJS.ProcessEnv): string {
  return env.QUEUEPORT_S3_ENDPOINT ? 'from QUEUEPORT_S3_ENDPOINT' : 'the moto_server of sqs';
}
