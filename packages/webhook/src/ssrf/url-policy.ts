import { isIP } from 'node:net';
import { compileOptionValidator, withoutUndefined } from '../sender/option-validator';
import { type AddressPolicy, type AddressPolicyOptions, createAddressPolicy } from './address-policy';
import { DestinationRefusedError } from './destination-refused-error';
import { hostMatches, normaliseAllowedHost, normaliseHost } from './host-pattern';
import { urlPolicyOptionsSchema } from './ssrf-options-schema';

export { normaliseHost } from './host-pattern';

export interface UrlPolicyOptions extends AddressPolicyOptions {
  /** Allow plain http:. Off by default: a webhook body and its signature must not travel in clear. */
  allowHttp?: boolean;
  /**
   * When set, only these hosts are reachable: exact names (`hooks.example.com`, `127.0.0.1`,
   * `[::1]`) or `*.example.com`, which matches any subdomain but not `example.com` itself.
   * Resolved addresses are still checked: the allow-list narrows, it never widens.
   */
  allowedHosts?: readonly string[];
}

/** A verdict may be shared by every check of the same URL string: read its `url`, never change it. */
export type UrlVerdict = { allowed: true; url: URL } | { allowed: false; error: DestinationRefusedError };

export interface UrlPolicy {
  check(url: string | URL): UrlVerdict;
  /** The address policy the guarded lookup must share, so literals and resolved names agree. */
  readonly addresses: AddressPolicy;
}

const checkOptions = compileOptionValidator(urlPolicyOptionsSchema, {
  subject: 'SSRF options',
  prepare: withoutUndefined,
});

export function createUrlPolicy(options: UrlPolicyOptions = {}): UrlPolicy {
  const checked = checkOptions(options) as UrlPolicyOptions;
  const addresses = createAddressPolicy({
    allowLoopback: checked.allowLoopback,
    allowPrivateCidrs: checked.allowPrivateCidrs,
  });
  // The schema has already refused every entry that does not normalise.
  const hosts = checked.allowedHosts?.map((entry) => normaliseAllowedHost(entry)!);
  const allowHttp = checked.allowHttp === true;
  const decide = (input: string | URL): UrlVerdict => {
    try {
      return { allowed: true, url: checkUrl(input, allowHttp, hosts, addresses) };
    } catch (error) {
      if (error instanceof DestinationRefusedError) return { allowed: false, error };
      // Nothing else is expected from checkUrl; a verdict is still owed, and it must refuse.
      return {
        allowed: false,
        error: new DestinationRefusedError('destination refused: the URL could not be checked', {
          reason: 'invalid-url',
        }),
      };
    }
  };
  // A URL string's verdict depends on nothing but the string and these options (no DNS here:
  // resolved addresses are checked at connect time, per connection), and a sender sends to the
  // same few destinations again and again, so verdicts are kept, a bounded number, oldest out.
  const verdicts = new Map<string, UrlVerdict>();
  return {
    addresses,
    check(input) {
      if (typeof input !== 'string') return decide(input);
      const known = verdicts.get(input);
      if (known) return known;
      const verdict = decide(input);
      if (verdicts.size >= VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value as string);
      verdicts.set(input, verdict);
      return verdict;
    },
  };
}

/** How many URL verdicts a policy keeps: far more destinations than one sender serves. */
const VERDICTS_KEPT = 1_000;

/** One-off check; prefer `createUrlPolicy`, which parses the options once. */
export function checkUrl(
  input: string | URL,
  allowHttp: boolean,
  allowedHosts: readonly string[] | undefined,
  addresses: AddressPolicy,
): URL {
  let url: URL;
  try {
    // WHATWG parsing normalises 2130706433, 0x7f000001 and 0177.0.0.1 to 127.0.0.1 for us.
    url = new URL(String(input));
  } catch {
    // The input is not echoed: a malformed URL may still carry a token in its query string.
    throw new DestinationRefusedError('destination refused: not a valid absolute URL', {
      reason: 'invalid-url',
    });
  }
  const host = url.hostname;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) {
    const hint = url.protocol === 'http:' ? ' (set allowHttp to allow plain http explicitly)' : '';
    throw new DestinationRefusedError(`destination refused: scheme ${url.protocol} is not allowed${hint}`, {
      reason: 'scheme',
      host,
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new DestinationRefusedError('destination refused: credentials in the URL are not allowed', {
      reason: 'credentials',
      host,
    });
  }
  const bare = normaliseHost(host);
  if (bare === '') {
    throw new DestinationRefusedError('destination refused: the URL has no host', { reason: 'invalid-url' });
  }
  if (allowedHosts && !allowedHosts.some((pattern) => hostMatches(bare, pattern))) {
    throw new DestinationRefusedError(`destination refused: host ${host} is not in allowedHosts`, {
      reason: 'host-not-allowed',
      host,
    });
  }
  // node:net skips the `lookup` hook for IP literals, so the guarded lookup never sees them:
  // a literal must be judged here or not at all.
  if (isIP(bare) !== 0) {
    const verdict = addresses.check(bare);
    if (!verdict.allowed) {
      throw new DestinationRefusedError(`destination refused: ${verdict.message}`, {
        reason: 'address',
        host,
        address: verdict.address,
        range: verdict.range,
      });
    }
  }
  return url;
}
