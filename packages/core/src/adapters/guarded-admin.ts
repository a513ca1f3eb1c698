import { type ErrorClassifier, type NormalizeErrorOptions, normalizeError, QueueError } from '../errors';
import type { QueueAdmin } from './adapter-definition';

/**
 * An admin surface whose every failure is in the port's terms, so no raw client error (and the
 * request or credentials it may carry) gets out of a provider package: each method's error goes
 * through `normalizeError` with the provider's classifier. `options.secrets` are the values the
 * adapter was configured with (API key, password): an error that falls back to INTERNAL has them
 * masked whatever their shape, where the patterns alone would miss a key without a known prefix.
 */
export function guardedAdmin(
  admin: QueueAdmin,
  where: string,
  classify?: ErrorClassifier,
  options: NormalizeErrorOptions = {},
): QueueAdmin {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(admin)) {
    if (typeof method !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await (method as (...a: unknown[]) => Promise<unknown>).apply(admin, args);
      } catch (error) {
        throw normalizeError(error, where, classify, options);
      }
    };
  }
  return guarded as unknown as QueueAdmin;
}

/**
 * Refuses, by name, a `createQueue` setting the provider does not take: a typo never silently
 * means the default.
 */
export function checkAdminSettings(
  settings: Readonly<Record<string, unknown>> | undefined,
  known: readonly string[],
  where: string,
): void {
  for (const key of Object.keys(settings ?? {})) {
    if (!known.includes(key)) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `${where}: createQueue takes no setting "${key}"${known.length > 0 ? ` (it takes ${known.join(', ')})` : ''}`,
        { details: { field: key } },
      );
    }
  }
}
