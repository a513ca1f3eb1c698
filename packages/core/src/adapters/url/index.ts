export {
  ENVIRONMENT_VARIABLE_NAME_RULE,
  type EnvironmentVariableSource,
  isEnvironmentVariableName,
  readEnv,
} from './env-name';
export {
  type OptionKind,
  type OptionValues,
  type TextRule,
  urlOption,
  type WholeNumberBounds,
} from './option-kinds';
export { decodeQueueName, encodeQueueName } from './queue-name';
export {
  defineUrlGrammar,
  type NameRule,
  type ReadUrl,
  type UrlGrammar,
  type UrlGrammarSpec,
} from './url-grammar';
