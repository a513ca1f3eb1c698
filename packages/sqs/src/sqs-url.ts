import { defineUrlGrammar, QueueError, urlOption } from '@queueport/core/driver';
import { SQS_OPTION_BOUNDS as BOUNDS, type SqsDriverOptions } from './sqs-options';

type UrlDriverOptions = Pick<
  SqsDriverOptions,
  'defaultGroupId' | 'nativeMaxDelaySeconds' | 'maxBodyBytes' | 'timeoutMs'
>;

export interface ParsedSqsUrl {
  /** Undefined: the region comes from the environment (AWS_REGION), as the SDK reads it. */
  region: string | undefined;
  /** A local server's endpoint (moto, local-aws-sqs); undefined for AWS itself. */
  endpoint: string | undefined;
  /** The queue owner's account, where the URL names one. */
  accountId: string | undefined;
  /** Empty for a provider URL (the admin's), which names no queue. */
  queueName: string;
  options: UrlDriverOptions;
}

const REGION = /^[a-z]{2,}(-[a-z0-9]+)+$/;
/**
 * A near miss of a region's name (`EU-WEST-1`, `eu_west_1`): nothing a secret looks like, so
 * safe to quote back in a refusal. A real region passes REGION and is never refused.
 */
const REGION_LOOKALIKE = /^[a-z]{2}([-_][a-z]+)+[-_]\d$/i;
const AWS_HOST = /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;
const ACCOUNT = /^[0-9]{12}$/;
/** SQS queue names: 1-80 letters, digits, `-` and `_`, a FIFO one's `.fifo` among the 80. */
const QUEUE_NAME = /^(?:[A-Za-z0-9_-]{1,80}|[A-Za-z0-9_-]{1,75}\.fifo)$/;

/**
 * `sqs://eu-west-1/orders.fifo?defaultGroupId=tenant`: the region as the host, the queue's name
 * as the path (`/<account>/<name>` for another account's queue), the driver's options as the
 * query. A queue URL works too, with its scheme swapped: `sqs://sqs.eu-west-1.amazonaws.com/
 * 123456789012/orders`. `endpoint=` points at a local server. Credentials never come from the
 * URL (the SDK's chain finds them), so a URL can be logged. The adapter's `urls`.
 */
export const sqsUrls = defineUrlGrammar({
  scheme: 'sqs',
  queueName: 'path',
  example: 'sqs://region/name or sqs://region/<12-digit account>/name',
  scope: { accepts: (segment) => ACCOUNT.test(segment) },
  queueNameRule: {
    accepts: (name) => QUEUE_NAME.test(name),
    refusal: 'an SQS queue name is 1-80 letters, digits, "-" or "_", with ".fifo" at the end of a FIFO queue',
  },
  credentials: 'the AWS SDK reads them from the environment or your profile',
  checkRest: (url) => {
    regionOf(url);
  },
  options: {
    endpoint: urlOption.custom({
      expected: 'an http(s) URL without credentials, query or fragment',
      parse: localEndpoint,
    }),
    defaultGroupId: urlOption.string(),
    nativeMaxDelaySeconds: urlOption.seconds(BOUNDS.nativeMaxDelaySeconds),
    maxBodyBytes: urlOption.integer(BOUNDS.maxBodyBytes),
    timeoutMs: urlOption.milliseconds(BOUNDS.timeoutMs),
  },
});

/** An sqs:// URL as the SDK's client and the driver take it. */
export function parseSqsUrl(url: URL): ParsedSqsUrl {
  const { queueName, scope, options } = sqsUrls.read(url);
  const region = regionOf(url);
  const { endpoint, ...driverOptions } = options;
  const given = Object.fromEntries(Object.entries(driverOptions).filter(([, value]) => value !== undefined));
  return { region, endpoint, accountId: scope, queueName, options: given as UrlDriverOptions };
}

/** The URL of a queue beside the provider's, with the same region, endpoint and options. */
export function queueUrl(provider: URL, queueName: string, accountId?: string): string {
  return sqsUrls.queueUrl(provider, queueName, accountId);
}

/** The region the host names (`eu-west-1`, or an AWS queue host's); undefined for none. */
function regionOf(url: URL): string | undefined {
  if (url.port) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'an sqs:// URL names a region, not a server: give a local server as endpoint=http://host:port',
      { details: { field: 'endpoint' } },
    );
  }
  const host = url.hostname;
  const awsHost = AWS_HOST.exec(host);
  const region = awsHost ? awsHost[1] : host === '' ? undefined : host;
  if (region !== undefined && !REGION.test(region)) {
    // A host may be something pasted by mistake (a key, a token): quoted only when it has a
    // region's shape, a near miss worth seeing.
    const which = REGION_LOOKALIKE.test(host) ? `"${host}"` : 'this host (not shown)';
    throw new QueueError(
      'INVALID_ARGUMENT',
      `sqs:// URLs name the region as the host (sqs://eu-west-1/orders); ${which} is not a region`,
      { details: { field: 'region' } },
    );
  }
  return region;
}

/** A local server's origin and any path prefix (a proxy's), without a trailing slash. */
function localEndpoint(value: string): string | undefined {
  let endpoint: URL;
  try {
    endpoint = new URL(value);
  } catch {
    return undefined;
  }
  const plain =
    /^https?:$/.test(endpoint.protocol) &&
    !endpoint.username &&
    !endpoint.password &&
    !endpoint.search &&
    !endpoint.hash;
  return plain ? `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}` : undefined;
}
