/** @queueport/core/testing: time that moves only when a test says so. */
export { VirtualClock } from './clock/virtual-clock';
