export { ABORTED_RECEIVE_TURNS, AbandonedTakes } from './abandoned-takes';
