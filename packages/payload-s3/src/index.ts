/** @queueport/payload-s3: a `PayloadStore` in an S3-compatible bucket, for the Queue's `payloadStore` option. */
export { classifyS3Error } from './classify-s3-error';
export {
  DEFAULT_PREFIX,
  DEFAULT_REQUEST_TIMEOUT_MS,
  S3PayloadStore,
  type S3PayloadStoreOptions,
} from './s3-payload-store';
