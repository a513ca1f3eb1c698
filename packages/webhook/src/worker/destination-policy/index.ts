export {
  type Admission,
  DEFAULT_DESTINATION_REFRESH_MS,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  type DestinationDisabledEvent,
  DestinationPolicy,
  type Taken,
} from './destination-policy';
