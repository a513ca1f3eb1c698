import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

/**
 * The FIFO driver's own attribute, `<notBeforeMs>:<g|d>`: when a delayed publish may be
 * delivered (0 for at once), since FIFO queues take no per-message delay, and whether the group
 * was the application's (`g`) or the default one (`d`), so an ungrouped message comes back
 * ungrouped. Set only where one of the two is needed.
 */
export const FIFO_ATTRIBUTE = 'queueport.fifo';

export interface FifoMark {
  notBefore: number;
  defaultGroup: boolean;
}

export function fifoMark(mark: FifoMark): string {
  return `${mark.notBefore}:${mark.defaultGroup ? 'd' : 'g'}`;
}

export function readFifoMark(value: MessageAttributeValue | undefined): FifoMark | undefined {
  const text = value?.StringValue;
  const match = text ? /^([0-9]{1,16}):([dg])$/.exec(text) : null;
  return match ? { notBefore: Number(match[1]), defaultGroup: match[2] === 'd' } : undefined;
}

/** What SQS adds to a message's size per attribute besides its name and value: the data type. */
export const DATA_TYPE_BYTES = 'String'.length;

/** SQS's String values hold XML characters only; anything else goes as Binary, byte for byte. */
const SQS_STRING = /^[\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

export function toSqsAttributes(
  attributes: Readonly<Record<string, string>>,
): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    // Both data types are 6 bytes long, so SQS counts a message's size the same either way.
    out[name] =
      value !== '' && SQS_STRING.test(value)
        ? { DataType: 'String', StringValue: value }
        : { DataType: 'Binary', BinaryValue: Buffer.from(value, 'utf8') };
  }
  return out;
}

/** The attributes as the application gave them; the driver's own is taken out. */
export function fromSqsAttributes(
  attributes: Readonly<Record<string, MessageAttributeValue>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!attributes) return out;
  for (const [name, value] of Object.entries(attributes)) {
    if (name === FIFO_ATTRIBUTE) continue;
    out[name] =
      value.StringValue ?? (value.BinaryValue ? Buffer.from(value.BinaryValue).toString('utf8') : '');
  }
  return out;
}

/** SQS's count of a message's size: body, then each attribute's name, data type and value. */
export function sqsMessageBytes(
  body: string,
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): number {
  let bytes = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name, 'utf8') + DATA_TYPE_BYTES;
    bytes +=
      value.StringValue !== undefined
        ? Buffer.byteLength(value.StringValue, 'utf8')
        : (value.BinaryValue?.length ?? 0);
  }
  return bytes;
}
