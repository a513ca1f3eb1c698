export { type BusinessIdentity, businessIdentity } from './business-identity';
export {
  type Effect,
  type ReferenceReceiver,
  type ReferenceReceiverOptions,
  type RespondContext,
  startReferenceReceiver,
} from './reference-receiver';
