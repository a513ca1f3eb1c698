export * from './discovery-client';
export * from './discovery-format';
export * from './drift';
