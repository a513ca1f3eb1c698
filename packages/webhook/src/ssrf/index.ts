export {
  type AddressPolicy,
  type AddressPolicyOptions,
  type AddressVerdict,
  checkAddress,
  createAddressPolicy,
} from './address-policy';
export {
  DestinationRefusedError,
  findDestinationRefusal,
  isDestinationRefused,
  type RefusalDetails,
  type RefusalReason,
} from './destination-refused-error';
export { createGuardedLookup, type ResolvedAddress, type Resolver, systemResolver } from './guarded-lookup';
export {
  checkUrl,
  createUrlPolicy,
  normaliseHost,
  type UrlPolicy,
  type UrlPolicyOptions,
  type UrlVerdict,
} from './url-policy';
