import { redactSecrets } from '../errors';
import { isEnvironmentVariableName } from './url/env-name';

const SECRET_PARAMETER = /(key|secret|token|password|credential|signature|auth)/i;

/**
 * How a query option's name reads when it is one: a letter, then letters, digits, `_`, `.` or
 * `-`, 40 at most. Anything else (`?<token>=1`, a secret pasted where a name goes) is masked,
 * and so is a name that looks like a credential (an `ifr_` key) even if it reads as one.
 */
const OPTION_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;

const MASK = 'REDACTED';

/**
 * A URL as it may appear in an error or a log line: no user name or password (a token given
 * as `foo://<token>@host/q` is the user part), no secret-looking query values, and no query
 * option name that does not read as one.
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return '[unparseable URL]';
  }
  if (parsed.username) parsed.username = MASK;
  if (parsed.password) parsed.password = MASK;
  const shown = new URLSearchParams();
  let changed = false;
  for (const [name, value] of parsed.searchParams) {
    if (!OPTION_NAME.test(name) || redactSecrets(name) !== name) {
      shown.append(MASK, MASK);
      changed = true;
    } else if (SECRET_PARAMETER.test(name) && !namesVariable(name, value)) {
      shown.append(name, MASK);
      changed = true;
    } else shown.append(name, value);
  }
  if (changed) parsed.search = shown.toString();
  return parsed.toString();
}

/**
 * `passwordEnv=REDIS_PASSWORD`, `keyEnv=INFRAI_API_KEY`: the name of the variable that holds
 * the secret, which is what a person needs to see. Kept only when it is a name by the one rule
 * the adapters read it by, so a secret pasted in by mistake is still masked and what is shown
 * is what was read.
 */
function namesVariable(parameter: string, value: string): boolean {
  return /Env$/.test(parameter) && isEnvironmentVariableName(value);
}
