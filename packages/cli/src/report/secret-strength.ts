/**
 * Whether a secret's value can be masked in output without garbling it. A value that is a
 * common word (`test`, the usual dummy AWS credentials) or very short also occurs in ordinary
 * text, so masking it would rewrite words that are not the secret.
 *
 * Stands in for core's `assessSecret` until that lands there; the verdicts are the same.
 */
export type SecretVerdict = 'maskable' | 'too-short' | 'common-word';

const MIN_MASKABLE_CHARS = 4;

/** Values people put where a secret goes when there is no real one: dummies, defaults, placeholders. */
const COMMON_WORDS = new Set([
  'test',
  'tests',
  'testing',
  'test123',
  'password',
  'passw0rd',
  'secret',
  'secrets',
  'changeme',
  'admin',
  'root',
  'user',
  'guest',
  'default',
  'example',
  'sample',
  'dummy',
  'fake',
  'mock',
  'local',
  'localhost',
  'minioadmin',
  'foobar',
  'foo',
  'bar',
  'key',
  'token',
  'value',
  'true',
  'false',
  'null',
  'none',
  'undefined',
  'yes',
  'no',
  'dev',
  'development',
  'prod',
  'production',
  'staging',
  'queue',
  'queueport',
  'webhook',
  'qwerty',
  'letmein',
  'abc123',
  '123456',
  '12345678',
  'xxxxxx',
]);

export function assessSecret(value: string): SecretVerdict {
  const trimmed = value.trim();
  if (COMMON_WORDS.has(trimmed.toLowerCase())) return 'common-word';
  if (trimmed.length < MIN_MASKABLE_CHARS) return 'too-short';
  return 'maskable';
}
