import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Envelope } from '../envelope';
import { QueueError } from '../errors';
import type { EventMap } from './event-map';

/**
 * One Standard Schema per event type (zod, valibot, arktype and others implement it), so the
 * Queue checks payloads without depending on any one validation library.
 */
export type PayloadSchemas<E extends EventMap> = { [K in keyof E]: StandardSchemaV1<unknown, E[K]> };

/** The most issues one error lists; a payload wrong in a thousand places needs only the first few. */
const MAX_ISSUES = 10;

/** Refuses anything that is not a map of Standard Schemas, at construction, not on the first publish. */
export function checkPayloadSchemas(schemas: unknown): Readonly<Record<string, StandardSchemaV1>> {
  if (schemas === null || typeof schemas !== 'object' || Array.isArray(schemas)) {
    throw new QueueError('INVALID_ARGUMENT', 'payloadSchemas must map event types to Standard Schemas', {
      details: { field: 'payloadSchemas' },
    });
  }
  const checked: Record<string, StandardSchemaV1> = Object.create(null);
  for (const [type, schema] of Object.entries(schemas)) {
    const standard = (schema as Partial<StandardSchemaV1> | null)?.['~standard'];
    if (standard?.version !== 1 || typeof standard.validate !== 'function') {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `payloadSchemas[${JSON.stringify(type)}] is not a Standard Schema (version 1): zod ≥ 3.24, valibot ≥ 1 and arktype ≥ 2 are`,
        { details: { field: `payloadSchemas.${type}` } },
      );
    }
    checked[type] = schema as StandardSchemaV1;
  }
  return Object.freeze(checked);
}

/**
 * Checks an envelope's payload against its type's schema. The payload is never replaced by the
 * schema's output: what the handler sees is what was published, and what the digest covers, so
 * a schema is a check, not a transform. With schemas declared, a type without one is refused:
 * a handler typed for the declared events must never see another. A payload carried by
 * reference is not in the message, so only its type is checked.
 *
 * Returns the failure rather than throwing it, so publish can refuse and receive can
 * dead-letter with the same error.
 */
export async function payloadProblem(
  schemas: Readonly<Record<string, StandardSchemaV1>>,
  envelope: Envelope,
): Promise<QueueError | undefined> {
  const details = { event_id: envelope.event_id, type: envelope.type };
  const schema = Object.hasOwn(schemas, envelope.type) ? schemas[envelope.type] : undefined;
  if (!schema) {
    return new QueueError(
      'INVALID_ENVELOPE',
      `event type ${JSON.stringify(envelope.type)} has no payload schema on this queue`,
      { details: { ...details, field: 'envelope.type' } },
    );
  }
  if (envelope.payload === undefined) return undefined;
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(envelope.payload);
  } catch (cause) {
    return new QueueError('INTERNAL', `the payload schema of ${JSON.stringify(envelope.type)} threw`, {
      details: { ...details, field: 'envelope.payload' },
      cause: cause instanceof Error ? { name: cause.name, message: cause.message } : String(cause),
    });
  }
  if (!result.issues) return undefined;
  const issues = result.issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: issuePath(issue.path),
    message: issue.message,
  }));
  const first = issues[0]!;
  return new QueueError(
    'INVALID_ENVELOPE',
    `payload of ${JSON.stringify(envelope.type)} is invalid at ${first.path}: ${first.message}` +
      (result.issues.length > 1 ? ` (and ${result.issues.length - 1} more)` : ''),
    { details: { ...details, field: first.path, issues } },
  );
}

/** `envelope.payload.items[2].sku`, the way a reader would point at the field. */
function issuePath(path: StandardSchemaV1.Issue['path']): string {
  let text = 'envelope.payload';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += `.${key}`;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}
