export { checkOptions, type OptionProblem, type OptionsKind } from './check-options';
export {
  consumeOptionsSchema,
  publishInputSchema,
  queueOptionsSchema,
  receiveOptionsSchema,
  releaseEntrySchema,
  retryPolicySchema,
} from './option-schemas';
