import { adapterHarness, type ConformanceProperty, queueProperties } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { describe, it } from 'vitest';
import { sqsAdapter } from '../../src';
import { sqsEndpoint, sqsProviderUrl, sqsServer } from './sqs';

/**
 * Where local-aws-sqs 2.0.2 (the fallback on machines without Python) differs from SQS, as
 * the suite found it: those properties are skipped there, by name, and run everywhere else.
 */
const LOCAL_AWS_SQS_GAPS: Readonly<Record<string, string>> = {
  'lease-extension': 'local-aws-sqs: an extended message does not come back after its new lease ends',
  'release-delay': 'local-aws-sqs: a released message does not come back within the slack',
  'consumer-redelivery': 'local-aws-sqs: a released message does not come back within the slack',
  'admin-surface': 'local-aws-sqs: a purge leaves a leased message counted',
  dedupe: 'local-aws-sqs: a FIFO repeat is delivered again once the first was deleted',
  ordering: 'local-aws-sqs: no FIFO group blocking, and a long poll for several messages waits out its time',
};

/**
 * Where moto_server 5.2.1 differs from SQS on FIFO queues. The part of dedupe it does keep
 * (a repeat while the first is still in the queue) is proven in sqs-driver.test.ts.
 */
const MOTO_FIFO_GAPS: Readonly<Record<string, string>> = {
  dedupe: 'moto: a FIFO repeat is delivered again once the first was deleted (SQS absorbs it for 5 minutes)',
};

/**
 * The whole suite against the test SQS server, one case per property (moto is slow): scratch
 * queues at the portable 256 KB (SQS's default is 1 MiB), so `size-limit` proves the driver
 * counts attributes as SQS does, and a redrive after 2 receives keeps `dead-letters` short.
 */
export function describeSqsConformance(
  name: string,
  fifo: boolean,
  options: {
    /** The bridge's hop (`nativeMaxDelaySeconds`): short, so real-time delays go hop by hop. */
    hopSeconds?: number;
    properties?: readonly ConformanceProperty[];
  } = {},
): void {
  if (!sqsEndpoint) {
    describe(`conformance: ${name}`, () => {
      it.skip('no SQS server (see the test services summary)', () => {});
    });
    return;
  }
  const gaps =
    sqsServer === 'local-aws-sqs' ? LOCAL_AWS_SQS_GAPS : sqsServer === 'moto' && fifo ? MOTO_FIFO_GAPS : {};
  describeConformance(
    name,
    adapterHarness(
      sqsAdapter,
      sqsProviderUrl(options.hopSeconds ? { nativeMaxDelaySeconds: options.hopSeconds } : {}),
      {
        createQueue: {
          redriveAfterReceives: 2,
          settings: { maxMessageBytes: 262_144, ...(fifo ? { fifo } : {}) },
        },
      },
    ),
    {
      numRuns: 1,
      properties: (options.properties ?? queueProperties).filter((property) => !(property.id in gaps)),
    },
  );
  if (Object.keys(gaps).length === 0 || options.properties) return;
  describe(`conformance: ${name}, gaps of ${sqsServer}`, () => {
    for (const [id, reason] of Object.entries(gaps)) it.skip(`${id}: ${reason}`, () => {});
  });
}
