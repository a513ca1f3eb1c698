export type {
  DeadLetterEntry,
  Driver,
  DriverMessage,
  ExtendEntry,
  OutgoingMessage,
  PublishOutcome,
  ReceiveRequest,
  ReleaseEntry,
  SettleOutcome,
} from './driver';
export { deriveProviderKey, type ProviderKeyRules } from './provider-key';
