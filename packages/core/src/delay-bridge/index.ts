export {
  BRIDGE_ATTRIBUTE,
  BRIDGE_RESERVED_BYTES,
  type BridgeState,
  decodeBridgeState,
  encodeBridgeState,
  hopDedupeKey,
} from './bridge-state';
export { type BridgedArrival, DelayBridge } from './delay-bridge';
export { type HopCalls, type HopReplacement, replaceHops } from './replace-hops';
