export { DEFAULT_RETRY_SCHEDULE, resolveRetrySchedule } from './retry-schedule';
