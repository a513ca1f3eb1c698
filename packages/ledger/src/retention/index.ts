export {
  type ApplyRetentionOptions,
  applyRetention,
  type RetentionProgress,
  type RetentionReport,
  type RetentionSkip,
  type RetentionSkipReason,
  type RetentionStep,
} from './apply-retention';
export {
  checkRetentionPolicy,
  DEFAULT_MESSAGE_LIFETIME_SECONDS,
  type ResolvedRetentionPolicy,
  type RetentionPolicy,
} from './retention-policy';
