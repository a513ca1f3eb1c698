import { describe, expect, it } from 'vitest';

describe('@queueport/webhook/reconcile', () => {
  it('holds the republishing and the worker-side handler; the root entry keeps only the report', async () => {
    const reconcile = await import('@queueport/webhook/reconcile');
    for (const name of ['runReconcile', 'handleReconcileMessage', 'parseReconcileWork', 'isReconcileWork']) {
      expect(reconcile, name).toHaveProperty(name, expect.any(Function));
    }
    expect(reconcile.buildReconciliationReport).toBeTypeOf('function');
    expect(reconcile.RECONCILE_REPUBLISH_TYPE).toBe('queueport.reconcile.republish');
    expect(reconcile.RECONCILE_SCAN_TYPE).toBe('queueport.reconcile.scan');

    const root = await import('@queueport/webhook');
    expect(root.buildReconciliationReport).toBe(reconcile.buildReconciliationReport);
    expect(root).not.toHaveProperty('runReconcile');
    expect(root).not.toHaveProperty('handleReconcileMessage');
  });

  it('does not offer its clocks: they are a seam for its own tests, not an option', async () => {
    const reconcile: Record<string, unknown> = await import('@queueport/webhook/reconcile');
    expect(reconcile).not.toHaveProperty('reconcileOn');
    expect(reconcile).not.toHaveProperty('handleReconcileMessageOn');
    expect(reconcile).not.toHaveProperty('systemReconcileClocks');
  });
});
