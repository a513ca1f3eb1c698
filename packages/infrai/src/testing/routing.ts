import type { CapabilityContract, DiscoverySnapshot } from '../discovery/discovery-format';

export type Route =
  | { kind: 'discovery-index' }
  | { kind: 'discovery-detail'; id: string }
  | {
      kind: 'capability';
      capability: string;
      contract: CapabilityContract;
      pathParams: Record<string, string>;
    };

interface Template {
  capability: string;
  contract: CapabilityContract;
  method: string;
  /** A literal segment, or a parameter's name in braces. */
  segments: readonly string[];
}

const DISCOVERY = '/v1/discovery';

/**
 * Requests to capabilities, by the method and path the served snapshot gives them: a test that
 * moves a capability's path in its `discovery` override moves the route with it.
 */
export class Router {
  readonly #templates: Template[];

  constructor(snapshot: DiscoverySnapshot) {
    this.#templates = Object.entries(snapshot.capabilities).map(([capability, contract]) => ({
      capability,
      contract,
      method: contract.method.toUpperCase(),
      segments: contract.path.split('/'),
    }));
  }

  match(method: string, pathname: string): Route | undefined {
    if (method === 'GET' && pathname === DISCOVERY) return { kind: 'discovery-index' };
    if (method === 'GET' && pathname.startsWith(`${DISCOVERY}/`)) {
      const id = decode(pathname.slice(DISCOVERY.length + 1));
      return id === undefined || id.includes('/') ? undefined : { kind: 'discovery-detail', id };
    }
    const segments = pathname.split('/');
    for (const template of this.#templates) {
      if (template.method !== method || template.segments.length !== segments.length) continue;
      const pathParams = matchSegments(template.segments, segments);
      if (pathParams) {
        return {
          kind: 'capability',
          capability: template.capability,
          contract: template.contract,
          pathParams,
        };
      }
    }
    return undefined;
  }
}

function matchSegments(
  template: readonly string[],
  actual: readonly string[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const want = template[i] ?? '';
    const got = actual[i] ?? '';
    const name = /^\{([^}]+)\}$/.exec(want)?.[1];
    if (name === undefined) {
      if (want !== got) return undefined;
      continue;
    }
    const value = decode(got);
    if (value === undefined || value === '') return undefined;
    params[name] = value;
  }
  return params;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
