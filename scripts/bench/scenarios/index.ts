/** Every scenario, in the order they run and appear in the table. */
import type { PairScenario, Scenario } from '../runner';
import { backlogDrain } from './backlog-drain';
import { bullmqDriverConsume10, bullmqDriverConsume50, bullmqDriverPublish } from './bullmq-driver';
import { bullmqConsume10, bullmqConsume50, bullmqPublish } from './bullmq-queue';
import { deliveryFloor } from './delivery-floor';
import { deliveryOtel } from './delivery-otel';
import { deliveryVsBatchedLimit } from './delivery-vs-batched-limit';
import { deliveryVsPhysicalLimit } from './delivery-vs-physical-limit';
import { deliveryVsRawPost } from './delivery-vs-raw-post';
import { infraiConsume, infraiConsumeAck, infraiPublish } from './infrai-queue';
import { ledgerPostgres, ledgerPostgresConcurrent } from './ledger-postgres';
import { ledgerSqlite } from './ledger-sqlite';
import { ledgerSqliteBatched } from './ledger-sqlite-batched';
import { postgresConsume10, postgresPublish } from './postgres-queue';
import { queueOtel } from './queue-otel';
import { queueVsDriver } from './queue-vs-driver';
import { rabbitmqConsume10, rabbitmqPublish } from './rabbitmq-queue';
import { sqsConsume, sqsPublish, sqsReceiveAck } from './sqs-queue';

/**
 * These two already compare OpenTelemetry on with off, so --otel runs them as they are (their
 * files set no `otel`: said here instead).
 */
const builtInOtel = (scenario: PairScenario): PairScenario => ({ ...scenario, otel: 'built-in' });

export const scenarios: readonly Scenario[] = [
  deliveryVsRawPost,
  deliveryVsPhysicalLimit,
  deliveryVsBatchedLimit,
  deliveryFloor,
  builtInOtel(deliveryOtel),
  ledgerSqlite,
  ledgerSqliteBatched,
  ledgerPostgres,
  ledgerPostgresConcurrent,
  queueVsDriver,
  builtInOtel(queueOtel),
  backlogDrain,
  bullmqDriverPublish,
  bullmqDriverConsume10,
  bullmqDriverConsume50,
  bullmqPublish,
  bullmqConsume10,
  bullmqConsume50,
  postgresPublish,
  postgresConsume10,
  rabbitmqPublish,
  rabbitmqConsume10,
  sqsPublish,
  sqsReceiveAck,
  sqsConsume,
  infraiPublish,
  infraiConsumeAck,
  infraiConsume,
];
