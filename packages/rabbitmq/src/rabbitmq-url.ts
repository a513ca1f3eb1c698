import { defineUrlGrammar, QueueError, readEnv, urlOption } from '@queueport/core/driver';

/**
 * `rabbitmq://host:port/orders?vhost=/&user=svc&passwordEnv=RABBITMQ_PASSWORD`: the password only
 * from the variable passwordEnv names, so a URL can be logged. `maxReceives` is the queue's
 * redrive, written by the admin's createQueue and checked against the queue at open.
 */
export const rabbitmqUrls = defineUrlGrammar({
  scheme: 'rabbitmq',
  queueName: 'path',
  example: 'rabbitmq://127.0.0.1:5672/orders?vhost=/',
  queueNameRule: {
    // 255 bytes is the broker's limit, less room for the `.delay.<seconds>` and `.dead-letters` queues.
    accepts: (name) =>
      Buffer.byteLength(name) <= 200 &&
      !name.startsWith('amq.') &&
      ![...name].some((c) => c < ' ' || c === '\x7f'),
    refusal: 'a rabbitmq queue name is at most 200 bytes, no control characters, not starting with amq.',
  },
  credentials: 'give user= and name an environment variable with passwordEnv=',
  secretOptions: { names: ['password', 'pass', 'pwd'], instead: 'name a variable with passwordEnv=' },
  options: {
    vhost: urlOption.string({ default: '/' }),
    user: urlOption.string({ default: 'guest' }),
    passwordEnv: urlOption.environmentVariable(),
    tls: urlOption.boolean({ default: false }),
    // The bound of opening a connection.
    timeoutMs: urlOption.milliseconds({ min: 100, max: 600_000, default: 10_000 }),
    maxReceives: urlOption.integer({ min: 1, max: 1000 }),
  },
});

export type ParsedRabbitmqUrl = ReturnType<typeof parseRabbitmqUrl>;

/** A rabbitmq:// URL as the driver takes it. Without passwordEnv only guest is taken, with its well-known password. */
export function parseRabbitmqUrl(url: URL, env: Readonly<Record<string, string | undefined>>) {
  const { queueName, options } = rabbitmqUrls.read(url);
  const { passwordEnv, ...rest } = options;
  if (passwordEnv === undefined && rest.user !== 'guest') {
    const details = { field: 'passwordEnv' };
    throw new QueueError('INVALID_ARGUMENT', `rabbitmq:// user ${rest.user} needs passwordEnv=`, { details });
  }
  const password = passwordEnv
    ? readEnv(passwordEnv, env, { scheme: 'rabbitmq', option: 'passwordEnv' })
    : 'guest';
  return {
    /** Empty for a provider URL (the admin's). */
    queueName,
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: url.port ? Number(url.port) : rest.tls ? 5671 : 5672,
    password,
    /** What errors must never show; guest's well-known password is no secret. */
    secrets: passwordEnv ? [password] : [],
    ...rest,
  };
}
