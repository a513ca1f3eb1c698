export type ServiceName = 'redis' | 'postgres' | 'sqs' | 'rabbitmq';

/** `external`: QUEUEPORT_SQS_ENDPOINT named it, so what it is stays unknown. */
export type SqsServerKind = 'moto' | 'local-aws-sqs' | 'external';

export const ALL_SERVICES: readonly ServiceName[] = ['redis', 'postgres', 'sqs', 'rabbitmq'];

/**
 * Connection info for the test services. Plain data so vitest can hand it to test workers
 * through `provide`/`inject`. A field is absent when that service was not asked for (or, for
 * SQS, could not be provided: `sqsUnavailable` then says why).
 */
export interface ServiceInfo {
  redisUrl?: string;
  postgresUrl?: string;
  /** An amqp:// URL of a RabbitMQ broker (its guest user on loopback, unless named otherwise). */
  rabbitmqUrl?: string;
  sqsEndpoint?: string;
  /** Which server answers there, for the gaps each one has (see the SQS package README). */
  sqsServer?: SqsServerKind;
  sqsUnavailable?: string;
  /**
   * An S3-compatible endpoint: the same moto_server as SQS (moto serves every AWS service on one
   * port), or QUEUEPORT_S3_ENDPOINT. Absent where SQS comes from local-aws-sqs, which has no S3:
   * `s3Unavailable` then says why.
   */
  s3Endpoint?: string;
  s3Unavailable?: string;
  notes: string[];
}

/** What the vitest global setup provides: it always asks for every service. */
export type AllServiceInfo = ServiceInfo & { redisUrl: string; postgresUrl: string; rabbitmqUrl: string };

/** One service made reachable: where it is, and how to undo what was done for it. */
export interface Ensured {
  url: string;
  /** How it came to be reachable, for summaries: "running", "started redis-server", ... */
  how: string;
  notes: string[];
  stop(): Promise<void>;
}

export type Log = (line: string) => void;
