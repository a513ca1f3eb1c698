export type { Destination } from '../sender-types';
export {
  DestinationRegistry,
  type DestinationRegistryOptions,
  type DisabledNotice,
} from './destination-registry';
export { assertDestination } from './validate-destination';
