/**
 * `@queueport/bullmq/adapter`: the adapter definition alone, importable without BullMQ, so a
 * program (the CLI) can read its peers and URL rules and say what to install when one is missing.
 */
export { type BullmqAdapterOptions, bullmqAdapter, createBullmqAdapter } from './bullmq-adapter';
