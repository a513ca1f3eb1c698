import { knownSchemes } from '../providers/known-adapters';
import { parseConfigUrl } from './check-url';
import { ConfigField } from './config-field';
import type { LedgerConfig, ProviderConfig, QueueportConfig, ReceiverConfig } from './config-types';
import { adapterSpecifiers } from './configured-adapters';
import {
  isEnvironmentVariableName,
  isShowableName,
  isShowableWord,
  looksLikeSecretValue,
} from './secret-names';

export interface ValidateOptions {
  /** Schemes besides the built-in ones (adapters passed in by a program, or the configuration's `adapters`). */
  extraSchemes?: readonly string[];
}

const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Checks a configuration as read from `file`: the first problem, by file and dotted field. */
export function validateConfig(
  raw: unknown,
  file: string | undefined,
  options: ValidateOptions = {},
): QueueportConfig {
  const root = new ConfigField(file, '');
  const record = root.object(raw, [
    '$schema',
    'adapters',
    'providers',
    'ledger',
    'receiver',
    'payloadLoader',
  ]);
  const schemes = [...knownSchemes(), ...(options.extraSchemes ?? [])];
  const adapters =
    record.adapters === undefined ? undefined : adapterSpecifiers(record.adapters, root.child('adapters'));
  if (record.providers === undefined) {
    const example = schemes[0] ? `, e.g. { "main": { "url": "${schemes[0]}://orders" } }` : '';
    throw root.child('providers').error(`is missing: name each provider by URL${example}`);
  }
  const config: QueueportConfig = {
    ...(adapters ? { adapters } : {}),
    providers: providers(record.providers, root.child('providers'), schemes),
  };
  if (record.ledger !== undefined) config.ledger = ledger(record.ledger, root.child('ledger'));
  if (record.receiver !== undefined) config.receiver = receiver(record.receiver, root.child('receiver'));
  if (record.payloadLoader !== undefined) {
    config.payloadLoader = root.child('payloadLoader').string(record.payloadLoader);
  }
  return config;
}

function providers(
  value: unknown,
  field: ConfigField,
  schemes: readonly string[],
): Record<string, ProviderConfig> {
  const names = field.record(value);
  const out: Record<string, ProviderConfig> = {};
  for (const [name, entry] of Object.entries(names)) {
    const at = field.child(name);
    if (!PROVIDER_NAME.test(name) || !isShowableName(name)) {
      throw at.error(
        'a provider name is 1-64 letters, digits, ".", "-" or "_", starting with a letter or digit',
      );
    }
    const provider = at.object(entry, ['url']);
    const urlField = at.child('url');
    if (provider.url === undefined) throw urlField.error('is missing: the URL that opens the provider');
    const url = parseConfigUrl(urlField.string(provider.url), urlField);
    const scheme = url.protocol.replace(/:$/, '');
    if (!schemes.includes(scheme)) {
      // A scheme of any other shape may be a token pasted where the scheme goes.
      const shown = isShowableWord(scheme) ? `"${scheme}://"` : 'its scheme (not shown)';
      throw urlField.error(`no adapter knows ${shown}; known: ${schemes.map((s) => `${s}://`).join(', ')}`);
    }
    out[name] = { url: provider.url as string };
  }
  return out;
}

function ledger(value: unknown, field: ConfigField): LedgerConfig {
  const record = field.object(value, ['sqlite', 'postgresUrlEnv']);
  const kinds = Object.keys(record);
  if (kinds.length !== 1) {
    throw field.error(
      'takes exactly one of "sqlite" (a file) or "postgresUrlEnv" (the variable holding a postgres:// URL)',
    );
  }
  if (record.sqlite !== undefined) {
    const sqlite = field.child('sqlite').string(record.sqlite);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(sqlite)) {
      throw field.child('sqlite').error('takes a file path, relative to the configuration file, not a URL');
    }
    return { sqlite };
  }
  return { postgresUrlEnv: envName(record.postgresUrlEnv, field.child('postgresUrlEnv')) };
}

function receiver(value: unknown, field: ConfigField): ReceiverConfig {
  const record = field.object(value, ['url', 'secretEnv', 'allowInsecure']);
  const urlField = field.child('url');
  if (record.url === undefined) throw urlField.error('is missing: where the drill delivers its event');
  const url = parseConfigUrl(urlField.string(record.url), urlField);
  const out: ReceiverConfig = { url: record.url as string };
  if (record.allowInsecure !== undefined)
    out.allowInsecure = field.child('allowInsecure').boolean(record.allowInsecure);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw urlField.error('must be an http:// or https:// URL');
  }
  if (url.protocol === 'http:' && out.allowInsecure !== true) {
    throw urlField.error('is plain http://: use https://, or set "allowInsecure": true for a local drill');
  }
  if (record.secretEnv !== undefined) out.secretEnv = envName(record.secretEnv, field.child('secretEnv'));
  return out;
}

function envName(value: unknown, field: ConfigField): string {
  const name = field.string(value);
  if (looksLikeSecretValue(name) || /:\/\//.test(name)) {
    throw field.error('takes the name of an environment variable, not the secret itself (not shown)');
  }
  if (!isEnvironmentVariableName(name)) {
    throw field.error(
      'takes the name of an environment variable: upper-case letters, digits and "_", not starting with a digit',
    );
  }
  return name;
}
