export {
  describeError,
  type EmitterOptions,
  type ErrorEventBase,
  type EventListener,
  type EventLogger,
  type EventSource,
  type EventsShape,
  eventNames,
  type ListenerErrorEvent,
  TypedEmitter,
  type Unsubscribe,
} from './emitter';
export { listenWithHooks, QUEUE_EVENT_NAMES, type QueueEvents } from './queue-events';
