export type { Driver, DriverMessage, OutgoingMessage, PublishOutcome, ReceiveRequest } from './driver';
