import { canonicalJson, type JsonValue } from '@queueport/core';
import { createAjv } from '@queueport/core/driver';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../discovery/discovery-format';
import { SimulatorError } from './simulator-error';

let ajv: Ajv | undefined;
/**
 * By the schema's text, shared by every simulator in the process: compiling is the slow part
 * (milliseconds a schema), and tests start many simulators, each on its own copy of mostly the
 * same snapshot. Made on first use, so starting a simulator compiles nothing; the per-object
 * map spares a request the canonical text.
 */
const byText = new Map<string, ValidateFunction>();
const byObject = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  const known = byObject.get(schema);
  if (known) return known;
  const text = canonicalJson(schema as JsonValue);
  let validate = byText.get(text);
  if (!validate) {
    if (!ajv) {
      // Discovery's schemas are the provider's: keywords ajv does not know are not ours to refuse.
      ajv = createAjv({ schemas: 'foreign' });
    }
    validate = ajv.compile(schema as object);
    byText.set(text, validate);
  }
  byObject.set(schema, validate);
  return validate;
}

/** VALIDATION_ERROR naming every field the request gets wrong, by JSON Pointer (ajv's instancePath). */
export function checkRequest(capability: string, schema: JsonSchema, params: unknown): void {
  const validate = validatorFor(schema);
  if (validate(params)) return;
  const problems = [...new Set((validate.errors ?? []).map(describe))];
  throw new SimulatorError('VALIDATION_ERROR', `invalid ${capability} request: ${problems.join('; ')}`, {
    hint: `see GET /v1/discovery/${capability} for the request schema`,
  });
}

function describe(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty !== undefined) {
    return `request field ${error.instancePath}/${params.missingProperty} is required`;
  }
  if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    return `request field ${error.instancePath}/${params.additionalProperty} is not allowed`;
  }
  return `request field ${error.instancePath || '(the request)'} ${error.message ?? 'is invalid'}`;
}
