export type { AnyEvents, EnvelopeFor, EnvelopeInputOf, EnvelopeOf, EventMap } from './event-map';
export { checkPayloadSchemas, type PayloadSchemas, payloadProblem } from './payload-schemas';
