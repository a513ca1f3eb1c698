export { ABORTED_RECEIVE_TURNS, AbandonedTakes } from './abandoned-takes';
export { ABORTED, untilAborted } from './until-aborted';
