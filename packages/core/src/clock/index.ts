export { type Clock, systemClock } from './clock';
export { VirtualClock } from './virtual-clock';
