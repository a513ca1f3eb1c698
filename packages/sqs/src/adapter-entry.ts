/**
 * `@queueport/sqs/adapter`: the adapter definition alone, importable without the AWS SDK, so a
 * program (the CLI) can read its peers and URL rules and say what to install when one is missing.
 */
export { createSqsAdapter, type SqsAdapterOptions, sqsAdapter } from './sqs-adapter';
