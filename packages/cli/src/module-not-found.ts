// One rule for "a package is not installed", shared with the adapters' peer imports.
export { isModuleNotFound } from '@queueport/core/driver';
