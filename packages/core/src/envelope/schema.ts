import type { ErrorObject } from 'ajv';
import { MAX_EVENT_ID_BYTES } from '../limits';
import { createAjv } from '../validation/ajv';
import { isDateTime } from './date-time';

const SHA256_HEX = '^[0-9a-f]{64}$';
// Control characters in an id end up in log lines and HTTP headers: refuse them at the door.
const PRINTABLE = '^[^\\u0000-\\u001f\\u007f]+$';

const envelopeSchema = {
  $id: 'https://queueport.dev/schemas/envelope-v1.json',
  type: 'object',
  required: ['v', 'event_id', 'type', 'occurred_at', 'payload_sha256'],
  additionalProperties: false,
  properties: {
    v: { const: 1 },
    event_id: { type: 'string', minLength: 1, maxLength: MAX_EVENT_ID_BYTES, pattern: PRINTABLE },
    type: { type: 'string', minLength: 1, maxLength: 256, pattern: PRINTABLE },
    occurred_at: { type: 'string', format: 'date-time' },
    payload: {},
    payload_ref: {
      type: 'object',
      required: ['uri', 'sha256'],
      additionalProperties: false,
      properties: {
        uri: { type: 'string', format: 'uri', maxLength: 2048 },
        sha256: { type: 'string', pattern: SHA256_HEX },
      },
    },
    payload_sha256: { type: 'string', pattern: SHA256_HEX },
  },
  oneOf: [{ required: ['payload'] }, { required: ['payload_ref'] }],
} as const;

const ajv = createAjv({ schemas: 'own' });
// Every received envelope's occurred_at is checked. isDateTime answers what ajv-formats' full
// `date-time` does (its property test compares the two) without that format's regular
// expressions and splits; it replaces it under the same name, so a refusal reads the same.
ajv.addFormat('date-time', isDateTime);

export const validateEnvelopeShape = ajv.compile(envelopeSchema);

export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    if (error.keyword === 'oneOf') return 'exactly one of payload or payload_ref is required';
    if (error.keyword === 'additionalProperties') {
      return `unknown field "${String(error.params.additionalProperty)}"`;
    }
    const where = error.instancePath === '' ? 'envelope' : error.instancePath.slice(1).replaceAll('/', '.');
    return `${where} ${error.message ?? 'is invalid'}`;
  });
}
