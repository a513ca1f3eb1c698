export * from './crash-window';
export * from './harness';
export * from './properties';
export * from './runner';
export { ConformanceViolation, Session, withSession } from './support';
