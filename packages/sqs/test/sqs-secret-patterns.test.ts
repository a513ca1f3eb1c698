import { redactSecrets } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { sqsAdapter } from '../src/adapter-entry';

describe("the SQS adapter's secret patterns", () => {
  it('mask AWS access key ids, long-term and temporary, once its light definition is loaded', () => {
    expect(sqsAdapter.secretPatterns?.length).toBeGreaterThan(0);
    const text = 'signed by AKIAIOSFODNN7EXAMPLE and ASIAY34FZKBOKMUTVV7A, region eu-west-1, AKIA-short';
    const masked = redactSecrets(text);
    expect(masked).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(masked).not.toContain('ASIAY34FZKBOKMUTVV7A');
    // Not an access key id: left as written.
    expect(masked).toContain('eu-west-1, AKIA-short');
  });
});
