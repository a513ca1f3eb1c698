export * from './check-discovery';
export * from './discovery-format';
export * from './drift';
export * from './fetch-discovery';
export * from './regions';
export * from './snapshot-file';
