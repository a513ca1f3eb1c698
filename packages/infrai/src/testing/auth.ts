import { SimulatorError } from './simulator-error';

const BEARER = /^Bearer +(\S+) *$/i;

/** The API key a request authenticates with; never echoed back, as a real service would not. */
export function authenticate(header: string | undefined, keys: ReadonlySet<string>): string {
  const key = header ? BEARER.exec(header)?.[1] : undefined;
  if (key === undefined) {
    throw new SimulatorError('UNAUTHORIZED', 'the request has no Authorization: Bearer <API key> header', {
      hint: 'send Authorization: Bearer ifr_...',
    });
  }
  if (!keys.has(key)) {
    throw new SimulatorError('UNAUTHORIZED', 'the API key is not known', {
      hint: 'check the project key; discovery is the only public route',
    });
  }
  return key;
}
