export {
  assertSigningSecret,
  MAX_SECRET_BYTES,
  MIN_SECRET_BYTES,
  SECRET_PREFIX,
  secretFragments,
  signingSecretProblem,
} from './signing-secret';
export { type SignatureHeaders, type SignInput, WebhookSigner } from './webhook-signer';
