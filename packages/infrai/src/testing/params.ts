import { SimulatorError } from './simulator-error';

/**
 * Reading a validated request. The snapshot's schema has been checked already; these guard
 * what the handlers rely on, for a test that has loosened the schema (schema drift), so a
 * drifted request is a VALIDATION_ERROR naming the field and never a crash.
 */
export type Params = Readonly<Record<string, unknown>>;

export function requiredString(params: Params, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw invalid(name, 'must be a string');
  return value;
}

export function optionalString(params: Params, name: string): string | undefined {
  return params[name] === undefined ? undefined : requiredString(params, name);
}

export function integerOr(params: Params, name: string, fallback: number): number {
  const value = params[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw invalid(name, 'must be a non-negative integer');
  }
  return value;
}

export function booleanOr(params: Params, name: string, fallback: boolean): boolean {
  const value = params[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalid(name, 'must be a boolean');
  return value;
}

export function objectParam(params: Params, name: string): Record<string, unknown> {
  const value = params[name];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(name, 'must be an object');
  return value as Record<string, unknown>;
}

export function invalid(field: string, problem: string): SimulatorError {
  return new SimulatorError('VALIDATION_ERROR', `request field /${field} ${problem}`, {
    hint: 'see GET /v1/discovery/{capability} for the request schema',
  });
}
