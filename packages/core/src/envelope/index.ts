export { decodeEnvelope, encodeEnvelope } from './codec';
export { canonicalJson, payloadDigest, sha256Hex } from './digest';
export type {
  Envelope,
  EnvelopeInput,
  InlineEnvelope,
  JsonValue,
  PayloadRef,
  ReferenceEnvelope,
} from './types';
export { ENVELOPE_VERSION } from './types';
export { assertEnvelope, prepareEnvelope } from './validate';
