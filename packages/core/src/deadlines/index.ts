export { DEADLINE_PASSED, DeadlineSlot, DeadlineWheel, LinkedSignal } from './deadline-wheel';
