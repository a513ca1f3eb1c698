import { QueueError, unknownOptionError } from '@queueport/core/driver';
import type { SqsDriverOptions } from './sqs-options';

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
const AWS_HOST = /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;
const ACCOUNT = /^[0-9]{12}$/;
/** SQS queue names: 1-80 letters, digits, `-` and `_`, a FIFO one's `.fifo` among the 80. */
const QUEUE_NAME = /^(?:[A-Za-z0-9_-]{1,80}|[A-Za-z0-9_-]{1,75}\.fifo)$/;
const NUMBER_OPTIONS = ['nativeMaxDelaySeconds', 'maxBodyBytes', 'timeoutMs'] as const;
const OPTIONS = ['endpoint', 'defaultGroupId', ...NUMBER_OPTIONS];

/**
 * `sqs://eu-west-1/orders.fifo?defaultGroupId=tenant`: the region as the host, the queue's name
 * as the path (`/<account>/<name>` for another account's queue), the driver's options as the
 * query. A queue URL works too, with its scheme swapped: `sqs://sqs.eu-west-1.amazonaws.com/
 * 123456789012/orders`. `endpoint=` points at a local server. Credentials never come from the
 * URL (the SDK's chain finds them), so a URL can be logged; unknown options are refused by name.
 */
export function parseSqsUrl(url: URL): ParsedSqsUrl {
  if (url.username || url.password) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'sqs:// URLs carry no credentials: the AWS SDK reads them from the environment or your profile',
      { details: { field: url.password ? 'password' : 'username' } },
    );
  }
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
    throw new QueueError(
      'INVALID_ARGUMENT',
      `sqs:// URLs name the region as the host (sqs://eu-west-1/orders); "${host}" is not a region`,
      { details: { field: 'region' } },
    );
  }
  const segments = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  if (segments.length > 2 || (segments.length === 2 && !ACCOUNT.test(segments[0]!))) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'an sqs:// URL names one queue: sqs://region/name or sqs://region/<12-digit account>/name',
      { details: { field: 'queueName' } },
    );
  }
  const queueName = segments.at(-1) ?? '';
  if (queueName !== '' && !QUEUE_NAME.test(queueName)) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'an SQS queue name is 1-80 letters, digits, "-" or "_", with ".fifo" at the end of a FIFO queue',
      { details: { field: 'queueName' } },
    );
  }
  let endpoint: string | undefined;
  const options: UrlDriverOptions = {};
  for (const [key, value] of url.searchParams) {
    if (key === 'endpoint') endpoint = checkEndpoint(value);
    else if (key === 'defaultGroupId') options.defaultGroupId = value;
    else if ((NUMBER_OPTIONS as readonly string[]).includes(key)) {
      options[key as (typeof NUMBER_OPTIONS)[number]] = integer(key, value);
    } else {
      throw unknownOption(key);
    }
  }
  return { region, endpoint, accountId: segments.length === 2 ? segments[0] : undefined, queueName, options };
}

/** The URL of a queue beside the provider's, with the same region, endpoint and options. */
export function queueUrl(provider: URL, queueName: string, accountId?: string): string {
  const url = new URL(provider.href);
  url.pathname = accountId ? `/${accountId}/${queueName}` : `/${queueName}`;
  return url.href;
}

function checkEndpoint(value: string): string {
  let endpoint: URL;
  try {
    endpoint = new URL(value);
  } catch {
    throw new QueueError('INVALID_ARGUMENT', 'sqs:// endpoint= must be an http(s) URL', {
      details: { field: 'endpoint' },
    });
  }
  if (
    !/^https?:$/.test(endpoint.protocol) ||
    endpoint.username ||
    endpoint.password ||
    endpoint.search ||
    endpoint.hash
  ) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'sqs:// endpoint= must be an http(s) URL without credentials, query or fragment',
      { details: { field: 'endpoint' } },
    );
  }
  // A path prefix (a proxy's) is kept; only a trailing slash goes.
  return `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}`;
}

/** Names the option only as a near miss of a real one: any other name may be a pasted secret. */
function unknownOption(key: string): QueueError {
  return unknownOptionError('sqs', key, OPTIONS);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new QueueError('INVALID_ARGUMENT', 'an sqs:// queue name has a malformed %-escape', {
      details: { field: 'queueName' },
    });
  }
}

function integer(key: string, value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new QueueError('INVALID_ARGUMENT', `sqs:// option ${key} is invalid: expected a whole number`, {
      details: { field: key },
    });
  }
  return n;
}
