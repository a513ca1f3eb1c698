export { outcomeOf, stillPending } from './pending';
export { Session, summary, withSession } from './session';
export { ConformanceViolation, check, checkEqual, checkRejects, show } from './violation';
