export { decodeEnvelope, decodeParsedEnvelope, encodeEnvelope } from './codec';
export {
  canonicalJson,
  canonicalJsonOfParsed,
  DEFAULT_MAX_ENCODED_BYTES,
  type EncodeOptions,
  payloadDigest,
  sha256Hex,
} from './digest';
export type {
  Envelope,
  EnvelopeInput,
  InlineEnvelope,
  JsonValue,
  PayloadRef,
  ReferenceEnvelope,
} from './types';
export { ENVELOPE_VERSION } from './types';
export { assertEnvelope, type PrepareEnvelopeOptions, prepareEnvelope } from './validate';
