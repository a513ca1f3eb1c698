import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as coreSchemas from '../../packages/core/src/options/option-schemas';
import { destinationSchema } from '../../packages/webhook/src/destinations/destination-schema';
import * as senderSchemas from '../../packages/webhook/src/sender/sender-schemas';
import * as ssrfSchemas from '../../packages/webhook/src/ssrf/ssrf-options-schema';
import { findUnitViolations, schemaUnitViolations, unitProblem, wordsOf } from './units';

// The units rule of ARCHITECTURE.md ("Units"): every duration's name ends in its unit, Seconds
// for queue semantics, Ms for transport and process timeouts; points in time are epoch ms named
// for the moment (`*At`, `*Until`). Checked over the whole public API and the option schemas.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('units: the naming rule', () => {
  it('reads a name word by word', () => {
    expect(wordsOf('requestTimeoutMs')).toEqual(['request', 'timeout', 'ms']);
    expect(wordsOf('MAX_LONG_POLL_SECONDS')).toEqual(['max', 'long', 'poll', 'seconds']);
    expect(wordsOf('HTTPTimeout')).toEqual(['http', 'timeout']);
  });

  it('wants a unit on every duration, and only there', () => {
    for (const name of [
      'delaySeconds',
      'leaseSeconds',
      'requestTimeoutMs',
      'baseMs',
      'retryAfterMs',
      'oldestReadyAgeSeconds',
      'FIFO_DEDUPE_WINDOW_SECONDS',
      'MAX_TIMEOUT_MS',
      'ms',
      'seconds',
      // Points in time, counts and sizes are not durations.
      'leaseExpiresAt',
      'leaseUntil',
      'timestamp',
      'now',
      'redriveAfterReceives',
      'maxAttempts',
      'pageSize',
      'message',
      'jitter',
    ]) {
      expect(unitProblem(name), name).toBeUndefined();
    }
    for (const name of [
      'timeout',
      'interval',
      'keepDelay',
      'leaseMargin',
      'ttl',
      'pollEvery',
      'backoff',
      'maxWait',
    ]) {
      expect(unitProblem(name), name).toBeDefined();
    }
  });
});

describe('units: the public API', () => {
  it('names the unit of every duration in the option schemas', () => {
    const schemas = { ...coreSchemas, ...senderSchemas, ...ssrfSchemas, destinationSchema };
    const found = Object.entries(schemas).flatMap(([name, schema]) => schemaUnitViolations(schema, name));
    expect(found).toEqual([]);
  });

  it('names the unit of every numeric duration an entry point exports or reaches', () => {
    const { violations, checked } = findUnitViolations(root);
    // The walk reaches every package's options, records and parameters.
    for (const name of [
      'delaySeconds', // core: publish input
      'defaultLeaseSeconds', // core: Queue options
      'baseMs', // core: RetryPolicy
      'nativeMaxDelaySeconds', // memory: driver options
      'busyTimeoutMs', // ledger/sqlite
      'olderThanSeconds', // webhook: reconciliation
      'requestTimeoutMs', // webhook: sender options
      'ledgerLeaseSeconds', // webhook: worker options
      'receiveWaitSeconds', // conformance: real-time timing
      'timeoutMs', // conformance/vitest
      'ms', // VirtualClock.advance(ms)
    ]) {
      expect(checked, name).toContain(name);
    }
    expect(violations.map((v) => `${v.name} (${v.where}, ${v.via}): ${v.problem}`)).toEqual([]);
  }, 120_000);
});
