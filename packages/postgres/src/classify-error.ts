import { type ErrorClassifier, type ErrorCode, QueueError } from '@queueport/core/driver';

/** SQLSTATE classes worth a retry: connection loss, serialization, resources, shutdown. */
const RETRYABLE_SQLSTATE = /^(08|40|53|57P|55P03)/;
/** What node-postgres says, without a SQLSTATE, when a connection dies or cannot be had. */
const RETRYABLE_MESSAGE =
  /Connection terminated|Connection ended|timeout exceeded when trying to connect|connection error/i;
/** 3D000 no such database; 23503 the queue's row went during a publish; 22021/22P05 a NUL in text. */
const BY_SQLSTATE: Record<string, ErrorCode> = {
  '3D000': 'NOT_FOUND',
  '23503': 'NOT_FOUND',
  '22021': 'INVALID_ARGUMENT',
  '22P05': 'INVALID_ARGUMENT',
};

/**
 * node-postgres failures in the port's terms, keeping the SQLSTATE and the server's message
 * (pg's errors never carry the password; normalizeError masks it besides).
 */
export const classifyPostgresError: ErrorClassifier = (cause) => {
  const code = String((cause as { code?: unknown } | null)?.code ?? '');
  const sqlstate = /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const message = cause instanceof Error ? cause.message : '';
  const said = `pgqueue: ${sqlstate ? `SQLSTATE ${sqlstate}: ` : ''}${message}`;
  // 57014 (statement_timeout) and pg's query_timeout: the call ran past the driver's own deadline.
  if (sqlstate === '57014' || /Query read timeout/i.test(message)) {
    return new QueueError('UNAVAILABLE', said, { cause, details: { timedOut: true } });
  }
  if ((sqlstate && RETRYABLE_SQLSTATE.test(sqlstate)) || RETRYABLE_MESSAGE.test(message)) {
    return new QueueError('UNAVAILABLE', said, { cause });
  }
  const mapped = sqlstate?.startsWith('28') ? 'UNAUTHORIZED' : sqlstate && BY_SQLSTATE[sqlstate];
  return mapped ? new QueueError(mapped, said, { cause }) : undefined;
};
