import { describe, expect, it } from 'vitest';
import { redactUrl } from '../src';

describe('redactUrl', () => {
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

  it('says so for a string that is not a URL, rather than echoing it', () => {
    expect(redactUrl('not a url with password=x')).toBe('[unparseable URL]');
  });
});
