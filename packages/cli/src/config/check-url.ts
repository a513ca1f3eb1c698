import type { ConfigField } from './config-field';
import {
  isEnvironmentVariableName,
  isSecretFieldName,
  isShowableName,
  looksLikeSecretValue,
  namesAnEnv,
} from './secret-names';

/**
 * Parses a URL of the configuration and refuses any secret written into it. Messages never
 * quote the URL: the part that is wrong may be the secret.
 */
export function parseConfigUrl(value: string, field: ConfigField): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw field.error('is not a URL (it is not shown here, in case it holds a secret)');
  }
  if (url.username || url.password) {
    throw field.error(
      'carries credentials: a URL in the configuration never holds a user or password; name the environment variable that holds the secret instead (a query option ending in "Env")',
    );
  }
  for (const [name, parameter] of url.searchParams) {
    const shown = isShowableName(name) ? `"${name}"` : '(a name not shown)';
    if (isSecretFieldName(name)) {
      throw field.error(
        `query option ${shown} looks like a secret; name the environment variable that holds it instead (an option ending in "Env")`,
      );
    }
    if (looksLikeSecretValue(parameter)) {
      throw field.error(`query option ${shown} holds what looks like a secret (not shown)`);
    }
    if (namesAnEnv(name) && !isEnvironmentVariableName(parameter)) {
      throw field.error(`query option ${shown} takes the name of an environment variable`);
    }
  }
  return url;
}
