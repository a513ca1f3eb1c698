import { type ErrorClassifier, type ErrorCode, QueueError } from '@queueport/core/driver';

/** AMQP reply codes by meaning: a forced close or a resource error may pass; a frame error never will. */
const BY_REPLY: Partial<Record<ErrorCode, readonly number[]>> = {
  NOT_FOUND: [312, 404],
  UNAVAILABLE: [320, 405, 506, 541],
  UNAUTHORIZED: [403, 530],
  INVALID_ARGUMENT: [406],
  PAYLOAD_TOO_LARGE: [311],
  INTERNAL: [501, 505],
};
/** What amqplib says, with no reply code, when the socket or a channel went away under a call. */
const GONE =
  /Channel closed|Connection closed|Socket closed|channel ended|Heartbeat timeout|IllegalOperation/i;

/** amqplib failures in the port's terms, keeping the broker's reply text (never the password: it connects with options, not a URL). */
export const classifyRabbitmqError: ErrorClassifier = (cause) => {
  const message = cause instanceof Error ? `${cause.name}: ${cause.message}` : '';
  const said = `rabbitmq: ${cause instanceof Error ? cause.message : String(cause)}`;
  const code = (cause as { code?: unknown } | null)?.code;
  const reply = typeof code === 'number' ? code : Number(/\b(\d{3}) \([A-Z-]+\)/.exec(message)?.[1]);
  // A missing vhost is refused like a permission, but no retry or credential will find it.
  if (reply === 530 && /vhost .* not found/i.test(message))
    return new QueueError('NOT_FOUND', said, { cause });
  const mapped = Object.entries(BY_REPLY).find(([, codes]) => codes.includes(reply))?.[0] as ErrorCode;
  if (mapped) return new QueueError(mapped, said, { cause, details: { replyCode: reply } });
  // amqplib's own refusal of a header table past its buffer, before anything is sent.
  if (/field table/i.test(message)) return new QueueError('PAYLOAD_TOO_LARGE', said, { cause });
  if (/ACCESS[-_]REFUSED|Login was refused/i.test(message))
    return new QueueError('UNAUTHORIZED', said, { cause });
  return GONE.test(message) ? new QueueError('UNAVAILABLE', said, { cause }) : undefined;
};
