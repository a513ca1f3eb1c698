/** Sent in User-Agent. A test keeps it equal to package.json's version. */
export const WEBHOOK_SDK_VERSION = '0.1.0';
export const USER_AGENT = `queueport-webhook/${WEBHOOK_SDK_VERSION}`;
