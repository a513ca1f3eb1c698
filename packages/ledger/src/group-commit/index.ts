export {
  DEFAULT_GROUP_MAX_ENTRIES,
  type GroupCommitOptions,
  type GroupCommitSettings,
  groupCommitSettings,
} from './group-commit';
