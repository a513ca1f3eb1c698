export type {
  Capabilities,
  DedupeCapability,
  DelayCapability,
  OrderingCapability,
} from './capabilities';
export { assertCapabilities, effectiveCapabilities, type PortableLimits } from './effective';
