/**
 * Whether a configured secret value can be masked in text without rewriting ordinary words.
 * A value this short or this common also occurs in text that is not the secret (an XML tag
 * name, a word in a message), so masking it everywhere would corrupt markup and structure.
 */
export type SecretAssessment = 'maskable' | 'too-short' | 'common-word';

/** Shorter values are masked only as whole words, in raw form (see `redactSecrets`). */
export const MIN_MASKABLE_SECRET_CHARS = 8;

/** Placeholder credentials and words that occur in reports, configs and markup on their own. */
const COMMON_VALUES: ReadonlySet<string> = new Set([
  'test',
  'tests',
  'testing',
  'testtest',
  'secret',
  'secrets',
  'password',
  'passwd',
  'passw0rd',
  'admin',
  'administrator',
  'guest',
  'changeme',
  'change-me',
  'change_me',
  'example',
  'default',
  'dummy',
  'local',
  'localhost',
  'sample',
  'placeholder',
  'root',
  'user',
  'username',
  'token',
  'apikey',
  'api-key',
  'api_key',
  'foobar',
  'qwerty',
  'qwertyuiop',
  'letmein',
  'welcome',
  'postgres',
  'minioadmin',
  'undefined',
  'null',
  'true',
  'false',
  'none',
  'empty',
  'demo',
  'fake',
  'mock',
  'testsuite',
  'testsuites',
  'testcase',
  'failure',
  'skipped',
  '12345678',
  '123456789',
  '1234567890',
]);

/**
 * `too-short` (fewer than 8 characters) is checked first, then `common-word` (a placeholder
 * such as `test`, `changeme` or `password`, case-insensitive, or one character repeated).
 * Only a `maskable` value is masked in every encoding by `redactSecrets`.
 */
export function assessSecret(value: string): SecretAssessment {
  const trimmed = value.trim();
  if (trimmed.length < MIN_MASKABLE_SECRET_CHARS) return 'too-short';
  if (COMMON_VALUES.has(trimmed.toLowerCase()) || /^(.)\1*$/su.test(trimmed)) return 'common-word';
  return 'maskable';
}
