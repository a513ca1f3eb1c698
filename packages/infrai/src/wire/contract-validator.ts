import { createAjv, QueueError, redactSecrets } from '@queueport/core/driver';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { DiscoverySnapshot } from '../discovery/discovery-format';
import type { QueueCapabilityId, RequestOf } from '../generated/queue-types';

interface Compiled {
  request: ValidateFunction;
  response: ValidateFunction;
}

/**
 * Every request body checked against the committed discovery snapshot before it is sent, and
 * every response's `data` after: a mismatch is a local, typed error naming the field, never an
 * HTTP round trip, and a drifted answer is caught where it lands instead of deep in the driver.
 */
export class ContractValidator {
  static readonly #shared = new WeakMap<DiscoverySnapshot, ContractValidator>();

  /** One per snapshot: compiling every capability's schemas costs milliseconds, once. */
  static for(snapshot: DiscoverySnapshot): ContractValidator {
    let validator = ContractValidator.#shared.get(snapshot);
    if (!validator) {
      validator = new ContractValidator(snapshot);
      ContractValidator.#shared.set(snapshot, validator);
    }
    return validator;
  }

  readonly #compiled = new Map<string, Compiled>();
  readonly #ajv: Ajv;

  constructor(readonly snapshot: DiscoverySnapshot) {
    // Discovery's schemas are the provider's: unknown keywords (examples, descriptions) are not ours to refuse.
    this.#ajv = createAjv({ schemas: 'foreign' });
  }

  checkRequest<K extends QueueCapabilityId>(capability: K, params: RequestOf<K>): void {
    const validate = this.#of(capability).request;
    if (!validate(params)) {
      const problems = describe(validate.errors);
      throw new QueueError(
        'INVALID_ARGUMENT',
        `infrai ${capability}: the request does not match Infrai's schema: ${problems.join('; ')}`,
        { details: { capability, field: firstField(validate.errors), problems } },
      );
    }
  }

  /** `secrets` are masked in the problems: a field's path can carry a name the server chose. */
  checkResponse(
    capability: string,
    data: unknown,
    requestId: string | undefined,
    secrets: readonly string[] = [],
  ): void {
    const validate = this.#of(capability).response;
    if (!validate(data)) {
      const problems = describe(validate.errors).map((problem) => redactSecrets(problem, secrets));
      throw new QueueError(
        'INTERNAL',
        `infrai ${capability}: Infrai answered data that does not match the snapshot (${problems.join('; ')}); run the discovery check (pnpm infrai:codegen --check)`,
        { details: { capability, problems, ...(requestId ? { requestId } : {}) } },
      );
    }
  }

  #of(capability: string): Compiled {
    let compiled = this.#compiled.get(capability);
    if (!compiled) {
      const contract = this.snapshot.capabilities[capability];
      if (!contract) {
        throw new QueueError('INTERNAL', `infrai: the discovery snapshot has no capability ${capability}`);
      }
      compiled = {
        request: this.#ajv.compile(contract.request as object),
        response: this.#ajv.compile(contract.response as object),
      };
      this.#compiled.set(capability, compiled);
    }
    return compiled;
  }
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const field = fieldOf(e);
    return `${field || '(body)'} ${e.message ?? 'is invalid'}`;
  });
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const missing = (error.params as { missingProperty?: string; additionalProperty?: string }) ?? {};
  const extra = missing.missingProperty ?? missing.additionalProperty;
  return extra ? (path ? `${path}.${extra}` : extra) : path;
}

function firstField(errors: ErrorObject[] | null | undefined): string | undefined {
  const first = errors?.[0];
  return first ? fieldOf(first) || undefined : undefined;
}
