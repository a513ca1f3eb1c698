import type { CapabilityContract } from '../discovery/discovery-format';
import { parseCanonicalBody, type ReceivedBody, refuseBody } from './request-body';
import { SimulatorError } from './simulator-error';

/**
 * One request's parameters as the capability's schema sees them: for GET and DELETE the path's
 * and the query string's, each query value read as the type the schema gives its property (a
 * query string carries only text); for the rest the canonical body, plus the path's.
 */
export function paramsOf(
  contract: CapabilityContract,
  pathParams: Readonly<Record<string, string>>,
  query: URLSearchParams,
  body: ReceivedBody,
  contentType: string | undefined,
): Record<string, unknown> {
  const method = contract.method.toUpperCase();
  if (method === 'GET' || method === 'DELETE') {
    if (body.kind === 'too-large' || body.bytes.length > 0) throw refuseBody();
    const fromQuery: Record<string, unknown> = {};
    for (const [name, text] of query) fromQuery[name] = typed(contract, name, text);
    return { ...fromQuery, ...pathParams };
  }
  const fromBody = parseCanonicalBody(body, contentType);
  for (const [name, value] of Object.entries(pathParams)) {
    if (name in fromBody && fromBody[name] !== value) {
      throw new SimulatorError(
        'VALIDATION_ERROR',
        `request field /${name} differs between the path and the body`,
        {
          hint: `send ${name} in the path only`,
        },
      );
    }
  }
  return { ...fromBody, ...pathParams };
}

function typed(contract: CapabilityContract, name: string, text: string): unknown {
  const properties = contract.request.properties as Record<string, { type?: unknown }> | undefined;
  const declared = properties?.[name]?.type;
  const types = Array.isArray(declared) ? declared : [declared];
  if (
    (types.includes('integer') || types.includes('number')) &&
    /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)
  ) {
    return Number(text);
  }
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}
