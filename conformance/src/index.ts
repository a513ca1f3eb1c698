export * from './harness';
export * from './properties';
export * from './runner';
export { ConformanceViolation, check, Session, show, withSession } from './support';
