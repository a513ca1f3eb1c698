// What the adapter imports only when it opens a driver or an admin: everything here uses the
// AWS SDK, the package's peer.
export { sqsAdmin } from './sqs-admin';
export { clientFor } from './sqs-client';
export { SqsDriver } from './sqs-driver';
