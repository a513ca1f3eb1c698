import * as root from '@queueport/core';
import * as driver from '@queueport/core/driver';
import * as testing from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';

describe('entry points', () => {
  it('keeps test tooling out of the application entry point', () => {
    expect(root).not.toHaveProperty('VirtualClock');
    expect(testing.VirtualClock).toBeTypeOf('function');
    expect(new testing.VirtualClock(5).now()).toBe(5);
  });

  it('gives drivers their helpers from /driver', () => {
    for (const name of [
      'deriveProviderKey',
      'normalizeError',
      'redactSecrets',
      'assessSecret',
      'defineAdapter',
    ]) {
      expect((driver as Record<string, unknown>)[name], name).toBeTypeOf('function');
    }
    expect(driver.deriveProviderKey('a:b', { maxLength: 64, allowed: /[^:]/ })).toBe('a_3ab');
    expect(driver.BRIDGE_ATTRIBUTE).toBe('queueport.bridge');
    expect(driver.BRIDGE_RESERVED_BYTES).toBe(64);
  });

  it('exports what applications use from the root', () => {
    for (const name of [
      'Queue',
      'QueueError',
      'openQueue',
      'AdapterRegistry',
      'nextRetry',
      'giveUpDelivery',
    ]) {
      expect(root, name).toHaveProperty(name);
    }
  });

  it('shares one QueueError class between the entry points', () => {
    expect(driver.QueueError).toBe(root.QueueError);
    expect(driver.normalizeError(new root.QueueError('CLOSED', 'x'), 'd')).toBeInstanceOf(root.QueueError);
  });
});
