import { messageOf } from './errors';
import { loadLocalAwsSqs, startLocalAwsSqs } from './local-sqs';
import { findMotoServer, startMoto } from './moto';
import { sqsListQueues } from './sqs-probe';
import type { Ensured, Log } from './types';

export type SqsOutcome = Ensured | { unavailable: string; notes: string[] };

export interface SqsOptions {
  /** QUEUEPORT_SQS_ENDPOINT: use exactly this endpoint, never start one. */
  override?: string;
  /** QUEUEPORT_SQS_SERVER=local-aws-sqs: skip moto, to run the tests as a machine without Python would. */
  prefer?: 'local-aws-sqs';
  log: Log;
}

/**
 * Never throws: SQS is optional for a test run, so a missing server becomes a reason that the
 * SQS tests can skip with, while Redis and PostgreSQL tests go on.
 */
export async function ensureSqs(options: SqsOptions): Promise<SqsOutcome> {
  if (options.override) {
    try {
      // Any HTTP answer will do: a real endpoint rejects our dummy signature yet is reachable.
      await sqsListQueues(options.override);
      return {
        url: options.override,
        how: 'from QUEUEPORT_SQS_ENDPOINT',
        notes: [],
        stop: async () => {},
      };
    } catch (error) {
      return {
        unavailable: `QUEUEPORT_SQS_ENDPOINT=${options.override} does not answer: ${messageOf(error)}`,
        notes: [],
      };
    }
  }
  // Short reasons first so a one-line summary can name them all; server output goes last.
  const reasons: string[] = [];
  const details: string[] = [];
  const failed = (prefix: string, error: unknown) => {
    const [first = '', ...rest] = messageOf(error).split('\n');
    reasons.push(prefix + first);
    details.push(...rest);
  };
  const moto = options.prefer === 'local-aws-sqs' ? undefined : findMotoServer();
  if (options.prefer === 'local-aws-sqs') reasons.push('QUEUEPORT_SQS_SERVER=local-aws-sqs');
  else if (moto) {
    try {
      return await startMoto(moto, options.log);
    } catch (error) {
      failed('', error);
    }
  } else {
    reasons.push('moto_server is not on PATH');
  }
  try {
    const createSqsServer = await loadLocalAwsSqs();
    if (createSqsServer) {
      const started = await startLocalAwsSqs(createSqsServer, options.log);
      return { ...started, notes: [...reasons, ...started.notes] };
    }
    reasons.push('local-aws-sqs is not installed');
  } catch (error) {
    failed('local-aws-sqs failed: ', error);
  }
  return { unavailable: [reasons.join('; '), ...details].join('\n'), notes: [] };
}
