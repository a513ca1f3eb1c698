import type { ReconcileOptions, ReconcileWorkerOptions } from '@queueport/webhook/reconcile';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DualPublishOptions, RollbackOptions } from '../src/index';
import * as cli from '../src/index';

describe('@queueport/cli keeps commands, not library code', () => {
  it('exports the reconcile command, and none of the reconciliation it runs (that is @queueport/webhook/reconcile)', async () => {
    expect(cli.reconcileCommand.name).toBe('reconcile');
    for (const moved of [
      'runReconcile',
      'handleReconcileMessage',
      'RECONCILE_REPUBLISH_TYPE',
      'RECONCILE_SCAN_TYPE',
      'reconcileChecks',
      'loadPayloadLoader',
    ]) {
      expect(cli, moved).not.toHaveProperty(moved);
    }
    const library = await import('@queueport/webhook/reconcile');
    expect(library.handleReconcileMessage).toBeTypeOf('function');
  });

  it('offers the migrate runs without their seams', () => {
    expect(cli.runDualPublish).toBeTypeOf('function');
    expect(cli.runRollback).toBeTypeOf('function');
    expect(cli).not.toHaveProperty('runDualPublishWith');
    expect(cli).not.toHaveProperty('runRollbackWith');
    expect(cli).not.toHaveProperty('patientClaims');
  });

  it('has no test seams in its public options: clocks and wrappers are internal parameters', () => {
    expectTypeOf<DualPublishOptions>().not.toHaveProperty('wrapDriver');
    expectTypeOf<DualPublishOptions>().not.toHaveProperty('wrapLedger');
    expectTypeOf<DualPublishOptions>().not.toHaveProperty('now');
    expectTypeOf<RollbackOptions>().not.toHaveProperty('now');
    expectTypeOf<ReconcileOptions>().not.toHaveProperty('now');
    expectTypeOf<ReconcileOptions>().not.toHaveProperty('wallClock');
    expectTypeOf<ReconcileWorkerOptions>().not.toHaveProperty('now');
    expectTypeOf<ReconcileWorkerOptions>().not.toHaveProperty('wallClock');
    expectTypeOf<ReconcileOptions>().toHaveProperty('startedAt');
  });
});
