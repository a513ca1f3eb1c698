import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS with a default export; both module systems must find the function.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * Whose schemas the instance compiles. `own`: ours, written in this repository, so a keyword ajv
 * does not know is a typo and refused (strict). `foreign`: a provider's (Infrai's discovery),
 * which carry annotations such as `examples` that are not ours to refuse.
 */
export type SchemaOrigin = 'own' | 'foreign';

export interface CreateAjvOptions {
  schemas: SchemaOrigin;
  /** Every problem rather than the first: on by default, since errors name each field. */
  allErrors?: boolean;
  /**
   * Errors carry their schema, so a message can be read from it (webhook options' `refusal`).
   * They carry the refused data too: a caller that turns it on must never print `data`.
   */
  verbose?: boolean;
}

/**
 * The one way an Ajv instance is made in queueport, so `format` means the same everywhere:
 * every ajv-formats format (`date-time`, `uri`, `uuid`, ...) in its full mode, whoever wrote the
 * schema. A schema that must accept what formats would refuse says so in the schema, not in
 * its own instance.
 */
export function createAjv({ schemas, allErrors = true, verbose = false }: CreateAjvOptions): Ajv {
  const options: Options =
    schemas === 'own'
      ? { allErrors, verbose, strict: true, strictRequired: false }
      : { allErrors, verbose, strict: false };
  const ajv = new Ajv(options);
  addFormats(ajv);
  return ajv;
}
