import { adapterHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { describe, it } from 'vitest';
import { sqsAdapter } from '../src';
import { sqsEndpoint, sqsProviderUrl } from './support/sqs';

// Scratch queues at the portable 256 KB (SQS's default is 1 MiB), so `size-limit` proves the
// driver counts attributes as SQS does; a redrive after 2 receives keeps `dead-letters` short.
const scratch = (fifo: boolean) => ({
  redriveAfterReceives: 2,
  settings: { maxMessageBytes: 262_144, ...(fifo ? { fifo: true } : {}) },
});

if (sqsEndpoint) {
  describeConformance(
    'sqs standard',
    adapterHarness(sqsAdapter, sqsProviderUrl(), { createQueue: scratch(false) }),
    {
      numRuns: 1,
    },
  );
} else {
  describe('sqs standard conformance', () => {
    it.skip(`no SQS server: ${process.env.QUEUEPORT_SQS_UNAVAILABLE ?? 'see the test services summary'}`, () => {});
  });
}
