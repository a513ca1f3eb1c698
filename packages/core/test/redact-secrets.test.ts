import { assessSecret, redactSecrets } from '@queueport/core/driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const MASK = '[REDACTED]';

/** Secrets as configured values look: printable, with the punctuation encoders escape. */
const secretChar = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  'é',
  'ß',
  '€',
  '😀',
);
const secretArb = fc
  .string({ unit: secretChar, minLength: 8, maxLength: 40 })
  .filter((value) => value.trim() === value && assessSecret(value) === 'maskable');
const around = fc.string({ maxLength: 30 });

function lowerHexEscapes(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase());
}
function htmlMinimal(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
function htmlHexEntities(text: string): string {
  return [...text]
    .map((char) => (/[A-Za-z0-9]/.test(char) ? char : `&#x${char.codePointAt(0)?.toString(16)};`))
    .join('');
}
function jsonAsciiOnly(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

const encodings: ReadonlyArray<readonly [string, (secret: string) => string]> = [
  ['raw', (secret) => secret],
  ['encodeURIComponent', encodeURIComponent],
  ['percent-encoded with lower-case hex', (secret) => lowerHexEscapes(encodeURIComponent(secret))],
  ['form-encoded (+ for space)', (secret) => new URLSearchParams({ v: secret }).toString().slice(2)],
  ['HTML-escaped', htmlMinimal],
  ['HTML hex entities', htmlHexEntities],
  ['JSON-string-escaped', (secret) => JSON.stringify(secret).slice(1, -1)],
  ['JSON-escaped to ASCII', jsonAsciiOnly],
  ['base64', base64],
  ['base64url', base64url],
];

describe('redactSecrets with known secrets', () => {
  for (const [name, encode] of encodings) {
    it(`masks a secret written ${name}`, () => {
      fc.assert(
        fc.property(secretArb, around, around, (secret, before, after) => {
          const form = encode(secret);
          const out = redactSecrets(`${before} ${form} ${after}`, [secret]);
          expect(out).not.toContain(form);
          expect(out).toContain(MASK);
        }),
        { numRuns: 100 },
      );
    });
  }

  it('masks a secret inside a longer base64 run at every byte alignment', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.string({ maxLength: 7 }),
        fc.string({ maxLength: 7 }),
        (secret, before, after) => {
          const encoded = base64(`${before}${secret}${after}`);
          const offset = Buffer.byteLength(before);
          const start = Math.ceil((offset * 8) / 6);
          const end = Math.floor(((offset + Buffer.byteLength(secret)) * 8) / 6);
          const carried = encoded.slice(start, end);
          for (const text of [
            `Authorization: Basic ${encoded}`,
            `token=${Buffer.from(`${before}${secret}${after}`).toString('base64url')}`,
          ]) {
            const out = redactSecrets(text, [secret]);
            expect(out).not.toContain(carried);
            expect(out).not.toContain(carried.replace(/\+/g, '-').replace(/\//g, '_'));
            expect(out).toContain(MASK);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('masks Basic credentials built from user:secret', () => {
    const secret = 'Zk9-sLq2_vR7tW';
    for (const user of ['u', 'us', 'use', 'user']) {
      const out = redactSecrets(`echo: Authorization: Basic ${base64(`${user}:${secret}`)}`, [secret]);
      expect(out, user).toContain(MASK);
      expect(Buffer.from(out.split(' ').at(-1) ?? '', 'base64').toString('latin1')).not.toContain(
        secret.slice(0, 4),
      );
    }
  });

  it('masks a secret cut off at the end of the text (its start) or at its start (its end)', () => {
    fc.assert(
      fc.property(
        secretArb.filter((secret) => secret.length > 8),
        around,
        fc.nat(),
        (secret, text, cutAt) => {
          const cut = 8 + (cutAt % (secret.length - 8));
          const start = secret.slice(0, cut);
          const end = secret.slice(secret.length - cut);
          const atEnd = redactSecrets(`${text}${start}`, [secret]);
          expect(atEnd.endsWith(MASK)).toBe(true);
          expect(atEnd).not.toContain(start);
          const atStart = redactSecrets(`${end}${text}`, [secret]);
          expect(atStart.startsWith(MASK)).toBe(true);
          expect(atStart).not.toContain(end);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('masks an encoded secret cut in half by a size cap', () => {
    const secret = 'k3y/with+sp ace&more';
    const encoded = encodeURIComponent(secret);
    const out = redactSecrets(`{"body":"...${encoded.slice(0, 12)}`, [secret]);
    expect(out).toBe(`{"body":"...${MASK}`);
  });

  it('leaves text without the secret unchanged', () => {
    // Every form of an upper-case secret holds an upper-case letter (base64 included).
    const text = fc.string({ unit: fc.constantFrom(...'abcxyz019 .,:;<>&"\'=/+-_%#\\{}[]'), maxLength: 80 });
    const secret = fc.stringMatching(/^[A-Z]{8,24}$/).filter((value) => assessSecret(value) === 'maskable');
    fc.assert(
      fc.property(text, secret, (sample, value) => {
        expect(redactSecrets(sample, [value])).toBe(redactSecrets(sample, []));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves arbitrary text alone when it holds no part of a random secret', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.uuid(), (sample, value) => {
        fc.pre(!sample.includes(value.slice(0, 8)) && !sample.includes(value.slice(-8)));
        expect(redactSecrets(sample, [value])).toBe(redactSecrets(sample, []));
      }),
      { numRuns: 300 },
    );
  });

  it('masks short or common values only as whole raw words, never inside markup', () => {
    const junit =
      '<testsuites tests="13"><testsuite name="core" tests="13"><testcase name="a test"/></testsuite></testsuites>';
    expect(redactSecrets(junit, ['test'])).toBe(junit.replace('a test"', `a ${MASK}"`));
    expect(redactSecrets('&test; &#test; </test> <test>', ['test'])).toBe('&test; &#test; </test> <test>');
    expect(redactSecrets('key=test, user: test.', ['test'])).toBe(`key=${MASK}, user: ${MASK}.`);
    expect(redactSecrets('passwords and password', ['password'])).toBe(`passwords and ${MASK}`);
    expect(redactSecrets('x dGVzdA== y', ['test'])).toBe('x dGVzdA== y');
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{4,7}$/),
        fc.stringMatching(/^[a-z]{1,10}$/),
        fc.stringMatching(/^[a-z]{1,10}$/),
        (secret, before, after) => {
          const word = `${before}${secret}${after}`;
          expect(redactSecrets(`<${word} ${word}="1">`, [secret])).toBe(`<${word} ${word}="1">`);
        },
      ),
    );
  });

  it('does not mask values under 4 characters', () => {
    expect(redactSecrets('a b abc', ['a', 'abc'])).toBe('a b abc');
  });

  it('masks a value configured with surrounding whitespace by its trimmed form too', () => {
    expect(redactSecrets('key Zk9sLq2vR7tW used', ['Zk9sLq2vR7tW\n'])).toBe(`key ${MASK} used`);
  });

  it('masks the longer of two overlapping secrets whole', () => {
    expect(redactSecrets('x abcdefgh-12345678 y', ['abcdefgh', 'abcdefgh-12345678'])).toBe(`x ${MASK} y`);
  });

  it('stays fast on a 64 KiB sample with many secrets', () => {
    const secrets = Array.from({ length: 20 }, (_, i) => `secret-value-${i}-XyZ/+=&`);
    const sample = 'lorem ipsum &amp; %20 \\u0041 dolor '.repeat(2000).slice(0, 65536);
    const started = performance.now();
    expect(redactSecrets(sample, secrets)).toBe(sample);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('assessSecret', () => {
  it.each([
    ['test', 'too-short'],
    ['abc1234', 'too-short'],
    ['password', 'common-word'],
    ['ChangeMe', 'common-word'],
    ['  changeme  ', 'common-word'],
    ['xxxxxxxxxxxx', 'common-word'],
    ['12345678', 'common-word'],
    ['k8sd9f7g6h', 'maskable'],
    ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'maskable'],
  ] as const)('%s is %s', (value, expected) => {
    expect(assessSecret(value)).toBe(expected);
  });
});
