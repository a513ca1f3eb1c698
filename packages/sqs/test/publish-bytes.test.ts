import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  type SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { encodeEnvelope, type PublishInput, prepareEnvelope, Queue } from '@queueport/core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SqsDriver } from '../src';
import { sqsMessageBytes } from '../src/message-attributes';
import { REGION, sqsEndpoint } from './support/sqs';

const LIMIT = 262_144;
const EIGHT_ATTRIBUTES = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`attr${i}`, `v${i}`]));

/** An event whose encoded envelope plus attributes is `bytes` long, as the Queue counts it. */
function eventOfSize(id: string, bytes: number): PublishInput {
  const envelope = (text: string) => ({ event_id: id, type: 'test.sized', payload: { text } });
  const attributeBytes = Object.entries(EIGHT_ATTRIBUTES).reduce((n, [k, v]) => n + k.length + v.length, 0);
  const base = encodeEnvelope(prepareEnvelope(envelope(''))).length + attributeBytes;
  return { envelope: envelope('x'.repeat(bytes - base)), attributes: EIGHT_ATTRIBUTES };
}

if (!sqsEndpoint) {
  describe('SQS publish batches by bytes', () => {
    it.skip(`no SQS server: ${inject('queueportServices').sqsUnavailable ?? 'see the test services summary'}`, () => {});
  });
} else {
  const client = new SQSClient({
    region: REGION,
    endpoint: sqsEndpoint,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const urls: string[] = [];
  afterAll(async () => {
    await Promise.allSettled(urls.map((QueueUrl) => client.send(new DeleteQueueCommand({ QueueUrl }))));
    client.destroy();
  });

  /** The driver over a client that notes each SendMessageBatch's entries as sent. */
  async function openRecorded(fifo: boolean) {
    const name = `qp-bytes-${randomUUID().slice(0, 8)}${fifo ? '.fifo' : ''}`;
    const { QueueUrl } = await client.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { MaximumMessageSize: String(LIMIT), ...(fifo ? { FifoQueue: 'true' } : {}) },
      }),
    );
    urls.push(QueueUrl!);
    const batches: SendMessageBatchRequestEntry[][] = [];
    const recorded = Object.create(client) as SQSClient;
    recorded.send = ((command: unknown, options?: unknown) => {
      if ((command as { constructor: { name: string } }).constructor.name === 'SendMessageBatchCommand') {
        batches.push((command as SendMessageBatchCommand).input.Entries ?? []);
      }
      return (client.send as (c: unknown, o?: unknown) => Promise<unknown>)(command, options);
    }) as SQSClient['send'];
    const driver = await SqsDriver.open({ client: recorded, queue: QueueUrl! });
    return { driver, batches };
  }

  const sqsBytes = (entries: readonly SendMessageBatchRequestEntry[]) =>
    entries.reduce((n, e) => n + sqsMessageBytes(e.MessageBody!, e.MessageAttributes ?? {}), 0);

  describe('SQS publish batches by bytes', () => {
    it('declares the call limit less a full batch of what SQS counts beyond the Queue', async () => {
      const standard = await openRecorded(false);
      const fifo = await openRecorded(true);
      // 10 attributes' data type and empty-value byte per message; on FIFO the driver's attribute too.
      expect(standard.driver.capabilities.batch.publishBytes).toBe(LIMIT - 10 * 70);
      expect(fifo.driver.capabilities.batch.publishBytes).toBe(
        LIMIT - 10 * (70 + 'queueport.fifo'.length + 18),
      );
      await standard.driver.close();
      await fifo.driver.close();
    });

    for (const fifo of [false, true]) {
      it(`never sends a SendMessageBatch past ${LIMIT} bytes as SQS counts them (${fifo ? 'FIFO' : 'standard'})`, async () => {
        const { driver, batches } = await openRecorded(fifo);
        const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
        // Four that fit the limit by the Queue's count alone, not once SQS adds 6 bytes an attribute.
        const near = Array.from({ length: 4 }, (_, i) =>
          eventOfSize(`near-${i}`, Math.floor((LIMIT - 40) / 4)),
        );
        const small = Array.from({ length: 12 }, (_, i) => eventOfSize(`small-${i}`, 2_000));
        const receipts = await queue.publishBatch([...near, ...small]);
        expect(receipts).toHaveLength(16);
        expect(batches.length).toBeGreaterThan(2);
        for (const batch of batches) {
          expect(batch.length).toBeLessThanOrEqual(10);
          expect(sqsBytes(batch)).toBeLessThanOrEqual(LIMIT);
        }
        expect(batches.flat()).toHaveLength(16);
        // Without the byte bound the four would have gone in one call, past what SQS accepts.
        expect(sqsBytes(batches.flat().slice(0, 4))).toBeGreaterThan(LIMIT);
        await queue.close();
      });
    }
  });
}
