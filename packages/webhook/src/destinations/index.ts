export type { Destination, DestinationRateLimit, DisableAfter } from '../sender-types';
export {
  DestinationRegistry,
  type DestinationRegistryOptions,
  type DisabledNotice,
} from './destination-registry';
export { isSenderOwnedHeader, SENDER_OWNED_HEADERS, SENDER_OWNED_PREFIXES } from './header-rules';
export {
  DEFAULT_RESUME_BATCH,
  DEFAULT_RESUME_MAX_WAIT_MS,
  type ResumeDestinationOptions,
  type ResumeResult,
  resumeDestination,
} from './resume-destination';
export { assertDestination } from './validate-destination';
