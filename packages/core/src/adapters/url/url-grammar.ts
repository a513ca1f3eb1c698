import { QueueError } from '../../errors';
import type { AdapterUrls } from '../adapter-definition';
import { type UnknownOptionRules, unknownOptionError } from '../unknown-option';
import type { OptionKind, OptionValues } from './option-kinds';
import { decodeQueueName, encodeQueueName } from './queue-name';

/** A provider's own rule for names, checked on the decoded name (never on an empty one). */
export interface NameRule {
  accepts(name: string): boolean;
  /** The rule in words, as the refusal: `an SQS queue name is 1-80 letters, digits, "-" or "_"`. */
  refusal: string;
}

export interface UrlGrammarSpec<O extends Record<string, OptionKind<unknown>>> {
  /** Without the colon: `bullmq`. */
  scheme: string;
  /**
   * Where the queue's name is: `path`, one segment (`bullmq://host:6379/orders`); `host`, the
   * host and any path after it, for a provider that has no server to name (`memory://orders`).
   */
  queueName: 'path' | 'host';
  /** A URL of the right form, for the refusal of one that is not: `bullmq://host:port/orders`. */
  example: string;
  queueNameRule?: NameRule;
  /**
   * For `path` names only: a segment the path may carry before the name (SQS's account:
   * `/123456789012/orders`). Read as `scope`.
   */
  scope?: { accepts(segment: string): boolean };
  options: O;
  /**
   * What to do instead of putting a user or password in the URL, said after the one refusal
   * every adapter gives: `<scheme>:// URLs carry no credentials: <this>`.
   */
  credentials: string;
  /**
   * Option names someone may try for a secret itself (`apiKey`), matched case-insensitively:
   * refused naming the option (it is one of these words, no pasted value) and saying where the
   * secret goes instead.
   */
  secretOptions?: { names: readonly string[]; instead: string };
  /**
   * The provider's own rules for the rest of the URL (SQS: the host is a region, there is no
   * port), run by `read` and so by `check`; throws the adapter's QueueError.
   */
  checkRest?(url: URL): void;
  /** An extra near-miss rule for unknown options (memory:// takes the start of a name). */
  nearMiss?: UnknownOptionRules['isNear'];
}

export interface ReadUrl<V> {
  /** Decoded; empty for a provider URL (an admin's), which names no queue. */
  queueName: string;
  /** The segment before the name, where the spec takes one and the URL gives it. */
  scope: string | undefined;
  options: V;
}

export interface UrlGrammar<O extends Record<string, OptionKind<unknown>>> extends AdapterUrls {
  readonly scheme: string;
  /** The option names, in the order declared. */
  readonly optionNames: readonly string[];
  /**
   * The URL as typed values, connecting to nothing. Refuses (INVALID_ARGUMENT, `details.field`
   * the part at fault) another scheme, credentials, an unknown or repeated option, a value its
   * kind does not take, a malformed %-escape and a name the provider's rule refuses. No refusal
   * quotes a value or the URL: any of them may be a secret typed in the wrong place.
   */
  read(url: URL): ReadUrl<OptionValues<O>>;
  /** The URL of `queueName` (and `scope`) at the provider `providerUrl`, its options kept. */
  queueUrl(providerUrl: URL, queueName: string, scope?: string): string;
}

/**
 * One adapter's URL rules, declared: where the queue's name is, the options and their kinds.
 * The result reads URLs with one set of refusals for every adapter and serves as the adapter's
 * `urls` (it is an `AdapterUrls`). What is truly the provider's (where Redis is, an AWS region)
 * stays in the adapter, read from the URL beside this.
 */
export function defineUrlGrammar<const O extends Record<string, OptionKind<unknown>>>(
  spec: UrlGrammarSpec<O>,
): UrlGrammar<O> {
  const { scheme } = spec;
  const optionNames = Object.keys(spec.options);
  const secretOptions = new Set(spec.secretOptions?.names.map((name) => name.toLowerCase()));

  const refuse = (message: string, field: string) =>
    new QueueError('INVALID_ARGUMENT', message, { details: { field } });

  const readOptions = (url: URL): OptionValues<O> => {
    const values: Record<string, unknown> = {};
    for (const name of optionNames) values[name] = spec.options[name]!.fallback;
    const seen = new Set<string>();
    for (const [key, text] of url.searchParams) {
      const kind = Object.hasOwn(spec.options, key) ? spec.options[key] : undefined;
      if (!kind) {
        if (spec.secretOptions && secretOptions.has(key.toLowerCase())) {
          throw refuse(
            `${scheme}:// URLs carry no secrets (option "${key}"): ${spec.secretOptions.instead}`,
            key,
          );
        }
        throw unknownOptionError(scheme, key, optionNames, spec.nearMiss ? { isNear: spec.nearMiss } : {});
      }
      if (seen.has(key)) throw refuse(`${scheme}:// option ${key} is given twice`, key);
      seen.add(key);
      const value = kind.parse(text);
      // The text is never quoted: in a URL any value may be a secret pasted into the wrong option.
      if (value === undefined)
        throw refuse(`${scheme}:// option ${key} is invalid: expected ${kind.expected}`, key);
      values[key] = value;
    }
    return values as OptionValues<O>;
  };

  const checkName = (name: string): string => {
    if (name !== '' && spec.queueNameRule && !spec.queueNameRule.accepts(name)) {
      throw refuse(spec.queueNameRule.refusal, 'queueName');
    }
    return name;
  };

  const readName = (url: URL): { queueName: string; scope: string | undefined } => {
    if (spec.queueName === 'host') {
      const raw = `${url.host}${url.pathname}`.replace(/\/+$/, '');
      return { queueName: checkName(decodeQueueName(scheme, raw)), scope: undefined };
    }
    const segments = url.pathname
      .split('/')
      .filter(Boolean)
      .map((segment) => decodeQueueName(scheme, segment));
    const scoped = segments.length === 2 && spec.scope?.accepts(segments[0]!) === true;
    if (segments.length > 1 && !scoped) {
      throw refuse(`the path of a ${scheme}:// URL names one queue: ${spec.example}`, 'queueName');
    }
    return { queueName: checkName(segments.at(-1) ?? ''), scope: scoped ? segments[0] : undefined };
  };

  const read = (url: URL): ReadUrl<OptionValues<O>> => {
    if (url.protocol !== `${scheme}:`) {
      throw refuse(`expected a ${scheme}:// URL (${spec.example})`, 'url');
    }
    if (url.username || url.password) {
      // Neither part is quoted: a token given as `scheme://<token>@host` is the user part.
      throw refuse(
        `${scheme}:// URLs carry no credentials: ${spec.credentials}`,
        url.password ? 'password' : 'username',
      );
    }
    const { queueName, scope } = readName(url);
    const options = readOptions(url);
    spec.checkRest?.(url);
    return { queueName, scope, options };
  };

  const grammar: UrlGrammar<O> = {
    scheme,
    optionNames,
    read,
    check(url) {
      read(url);
    },
    envNames(url) {
      const { options } = read(url);
      return optionNames.flatMap((name) => {
        const value = (options as Record<string, unknown>)[name];
        return spec.options[name]!.namesVariable && typeof value === 'string' ? [value] : [];
      });
    },
    providerUrl(queueUrl) {
      if (spec.queueName === 'host') return `${scheme}://${queueUrl.search}`;
      const url = new URL(queueUrl.href);
      url.pathname = '';
      return url.href;
    },
    queueUrl(providerUrl, queueName, scope) {
      if (spec.queueName === 'host') return `${scheme}://${encodeQueueName(queueName)}${providerUrl.search}`;
      const url = new URL(providerUrl.href);
      const segments = scope === undefined ? [queueName] : [scope, queueName];
      // A URL path reads `.` and `..` (escaped or not) as steps, never as names.
      if (segments.some((segment) => segment === '.' || segment === '..')) {
        throw refuse(`a ${scheme}:// URL cannot name a queue "." or ".." in its path`, 'queueName');
      }
      url.pathname = `/${segments.map(encodeQueueName).join('/')}`;
      return url.href;
    },
  };
  return grammar;
}
