export type { Destination } from '../sender-types';
export {
  DestinationRegistry,
  type DestinationRegistryOptions,
  type DisabledNotice,
} from './destination-registry';
export { isSenderOwnedHeader, SENDER_OWNED_HEADERS, SENDER_OWNED_PREFIXES } from './header-rules';
export { assertDestination } from './validate-destination';
