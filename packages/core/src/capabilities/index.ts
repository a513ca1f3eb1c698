export type {
  BatchLimits,
  Capabilities,
  DeadLetterCapability,
  DedupeCapability,
  DelayCapability,
  OrderingCapability,
  StaleReceiptBehavior,
} from './capabilities';
export { assertCapabilities, effectiveCapabilities, type PortableLimits } from './effective';
