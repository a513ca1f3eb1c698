export {
  DEFAULT_GROUP_MAX_ENTRIES,
  GroupCommit,
  type GroupCommitOptions,
  type GroupCommitSettings,
  groupCommitSettings,
} from './group-commit';
