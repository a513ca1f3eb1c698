import { createRequire } from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';

/** `@opentelemetry/api`, as this package uses it. */
export type OtelApi = typeof OtelApiModule;

/** Loads a module by name, or throws when it is not installed. */
export type ModuleLoader = (name: string) => unknown;

const requireHere: ModuleLoader = (name) => createRequire(import.meta.url)(name);

let cached: { api: OtelApi | undefined } | undefined;

/**
 * The OpenTelemetry API, or undefined where it is not installed: it is an optional peer, so
 * importing this package never fails for its absence. The API keeps its providers in one global
 * registry, so the copy loaded here sees the providers the application registered through its own.
 */
export function loadOtelApi(load: ModuleLoader = requireHere): OtelApi | undefined {
  if (load !== requireHere) return tryLoad(load);
  cached ??= { api: tryLoad(load) };
  return cached.api;
}

function tryLoad(load: ModuleLoader): OtelApi | undefined {
  try {
    return load('@opentelemetry/api') as OtelApi;
  } catch {
    return undefined;
  }
}
