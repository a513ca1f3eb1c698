import { describe, expect, it } from 'vitest';
import * as cli from '../src/index';

describe('@queueport/cli as a library', () => {
  it('exports what the bin runs, for a bin of its own (runAsProcess and its bounds)', () => {
    expect(cli.runAsProcess).toBeTypeOf('function');
    expect(cli.EXIT_GRACE_MS).toBeGreaterThan(0);
    expect(cli.STOP_CLEANUP_MS).toBeGreaterThan(cli.EXIT_GRACE_MS);
  });
});
