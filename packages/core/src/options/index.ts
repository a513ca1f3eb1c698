export { checkOptions, type OptionProblem, type OptionsKind } from './check-options';
export {
  closeOptionsSchema,
  consumeOptionsSchema,
  publishInputSchema,
  queueOptionsSchema,
  receiveOptionsSchema,
  releaseEntrySchema,
  retryPolicySchema,
} from './option-schemas';
