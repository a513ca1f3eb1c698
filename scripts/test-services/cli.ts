import { ensureServices } from './ensure-services';
import { messageOf } from './errors';
import { redactUrl } from './redact';
import type { ServiceInfo } from './types';

const USAGE = `usage: node --conditions=@queueport/source --import tsx scripts/test-services/cli.ts [--json] [--check]
  Makes Redis, PostgreSQL, RabbitMQ and an SQS-compatible server reachable and prints where they are.
  Without --check it keeps what it started running until Ctrl-C.
  --json   print the connection info as JSON on stdout
  --check  stop again at once; exit 1 if any service is unavailable`;

const args = process.argv.slice(2);
const unknown = args.filter((arg) => !['--json', '--check', '--help', '-h'].includes(arg));
if (unknown.length > 0 || args.includes('--help') || args.includes('-h')) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(unknown.length > 0 ? 2 : 0);
}
const json = args.includes('--json');
const check = args.includes('--check');

function exports(services: ServiceInfo): string[] {
  const vars: [string, string | undefined][] = [
    ['QUEUEPORT_REDIS_URL', services.redisUrl],
    ['QUEUEPORT_POSTGRES_URL', services.postgresUrl],
    ['QUEUEPORT_RABBITMQ_URL', services.rabbitmqUrl],
    ['QUEUEPORT_SQS_ENDPOINT', services.sqsEndpoint],
  ];
  // Only a URL the user supplied can carry a password, and they already have it.
  return vars.flatMap(([name, value]) => (value ? [`export ${name}=${redactUrl(value)}`] : []));
}

const log = (line: string) => process.stderr.write(`test services: ${line}\n`);
let handle: Awaited<ReturnType<typeof ensureServices>>;
try {
  handle = await ensureServices({ log });
} catch (error) {
  process.stderr.write(`${messageOf(error)}\n`);
  process.exit(1);
}

const { services, summary, stop } = handle;
const printable = {
  ...services,
  ...(services.redisUrl && { redisUrl: redactUrl(services.redisUrl) }),
  ...(services.postgresUrl && { postgresUrl: redactUrl(services.postgresUrl) }),
  ...(services.rabbitmqUrl && { rabbitmqUrl: redactUrl(services.rabbitmqUrl) }),
};
if (json) process.stdout.write(`${JSON.stringify(printable, null, 2)}\n`);
else process.stdout.write(`${[...summary, ...exports(services)].join('\n')}\n`);

if (check) {
  await stop();
  process.exit(services.sqsUnavailable ? 1 : 0);
}

process.stderr.write('test services: running; Ctrl-C stops what this started\n');
// Nothing else holds the event loop open once the servers run detached.
const keepAlive = setInterval(() => {}, 1 << 30);
const shutdown = async () => {
  clearInterval(keepAlive);
  await stop();
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
