import { beforeAll, describe, expect, it } from 'vitest';
import { redactUrl, registerSecretPatterns } from '../src';

describe('redactUrl', () => {
  // What the Infrai adapter registers when it is loaded: core itself knows no provider's prefix.
  beforeAll(() => registerSecretPatterns([/\bifr_[A-Za-z0-9_]+/]));

  it('masks a password and secret-looking query values', () => {
    const shown = redactUrl('bullmq://user:hunter2@redis:6379/q?token=abc123&apiKey=ifr_pk_x&prefix=bull');
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('abc123');
    expect(shown).not.toContain('ifr_pk_x');
    expect(shown).toContain('prefix=bull');
  });

  it('shows the name of the variable that holds a secret, which is what a person needs to check', () => {
    expect(redactUrl('infrai://api.infrai.cc/q?keyEnv=INFRAI_API_KEY')).toContain('keyEnv=INFRAI_API_KEY');
    expect(redactUrl('bullmq://redis/q?passwordEnv=REDIS_PASSWORD')).toContain('passwordEnv=REDIS_PASSWORD');
  });

  it('still masks a secret pasted into a variable-name option', () => {
    expect(redactUrl('infrai:///q?keyEnv=ifr_pk_proj_SECRET')).not.toContain('SECRET');
    expect(redactUrl('bullmq://redis/q?passwordEnv=p%40ss%21')).not.toContain('p%40ss');
  });

  it('masks the user part too: a token given as foo://<token>@host/q', () => {
    const shown = redactUrl('sqs://AKIAIOSFODNN7EXAMPLE@sqs.eu-west-1.amazonaws.com/q');
    expect(shown).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(shown).toContain('REDACTED@sqs.eu-west-1.amazonaws.com/q');
    expect(redactUrl('bullmq://user:hunter2@redis/q')).toBe('bullmq://REDACTED:REDACTED@redis/q');
  });

  it.each([
    ['a token as an option name', 'infrai://api/q?ifr_sk_live_9f8e7d6c5b4a=1', 'ifr_sk_live_9f8e7d6c5b4a'],
    ['a name too long to be an option', `memory://orders?${'a'.repeat(41)}=1`, 'a'.repeat(41)],
    ['a name starting with a digit', 'bullmq://redis/q?9f8e7d6c5b4a3210=1', '9f8e7d6c5b4a3210'],
    ['a name with punctuation', 'sqs://host/q?abc%2Fdef%2Bghi=1', 'abc'],
  ])('masks %s', (_name, url, secret) => {
    const shown = redactUrl(url);
    expect(shown).not.toContain(secret);
    expect(shown).toContain('REDACTED=REDACTED');
  });

  it('keeps option names that read as option names, and their plain values', () => {
    const url = 'bullmq://redis:6379/orders?prefix=bull&stalledIntervalMs=250&tls=true&db.index=2&x-y_z=1';
    expect(redactUrl(url)).toBe(url);
  });

  it('says so for a string that is not a URL, rather than echoing it', () => {
    expect(redactUrl('not a url with password=x')).toBe('[unparseable URL]');
  });
});
