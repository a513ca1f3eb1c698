export { type BullmqAdapterOptions, bullmqAdapter, createBullmqAdapter } from './bullmq-adapter';
export { BullmqDriver } from './bullmq-driver';
export { BULLMQ_BATCH, type BullmqDriverOptions, DEFAULT_DEDUPE_WINDOW_SECONDS } from './bullmq-options';
export { parseBullmqUrl } from './bullmq-url';
export { JOB_ID_RULES, jobIdFor } from './job-id';
