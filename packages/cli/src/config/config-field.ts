import { ConfigError } from '../errors';
import { isSecretFieldName, isShowableName } from './secret-names';

/** Where a value sits in the configuration, for messages: the file and a dotted path. */
export class ConfigField {
  constructor(
    readonly file: string | undefined,
    readonly path: string,
  ) {}

  child(key: string): ConfigField {
    const shown = isShowableName(key) ? key : '[a key not shown]';
    return new ConfigField(this.file, this.path ? `${this.path}.${shown}` : shown);
  }

  /** The entry at `index` of a list: `adapters[0]`. */
  item(index: number): ConfigField {
    return new ConfigField(this.file, `${this.path}[${index}]`);
  }

  error(message: string): ConfigError {
    return new ConfigError(message, this.file, this.path || undefined);
  }

  /** A plain object whose keys are the user's own (provider names). */
  record(value: unknown): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw this.error(`must be an object, not ${describeType(value)}`);
    }
    return value as Record<string, unknown>;
  }

  /** A plain object; its keys checked against `allowed`, secrets refused before anything else. */
  object(value: unknown, allowed: readonly string[]): Record<string, unknown> {
    const record = this.record(value);
    for (const key of Object.keys(record)) {
      if (isSecretFieldName(key)) {
        throw this.child(key).error(
          'a secret is never written in the configuration: name the environment variable that holds it instead (a field ending in "Env")',
        );
      }
    }
    for (const key of Object.keys(record)) {
      if (!allowed.includes(key)) {
        const known = allowed.map((k) => `"${k}"`).join(', ');
        throw this.child(key).error(
          isShowableName(key)
            ? `unknown key "${key}"; allowed here: ${known}`
            : `an unknown key (not shown: it may be a secret); allowed here: ${known}`,
        );
      }
    }
    return record;
  }

  string(value: unknown): string {
    if (typeof value !== 'string' || value.trim() === '') {
      throw this.error(`must be a non-empty string, not ${describeType(value)}`);
    }
    return value;
  }

  boolean(value: unknown): boolean {
    if (typeof value !== 'boolean') throw this.error(`must be true or false, not ${describeType(value)}`);
    return value;
  }
}

/** A type for a message; never the value, which may be a secret. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
