export {
  checkDriverOptions,
  checkOptions,
  type DriverOptionsSchema,
  type OptionProblem,
  type OptionsKind,
  unreadable,
} from './check-options';
export {
  closeOptionsSchema,
  consumeOptionsSchema,
  publishInputSchema,
  queueOptionsSchema,
  receiveOptionsSchema,
  releaseEntrySchema,
  retryPolicySchema,
} from './option-schemas';
export { wholeNumberSchemas } from './whole-number-schema';
