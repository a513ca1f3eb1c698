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

/**
 * SQS refuses empty attribute values of every type, so an empty value travels as this one
 * byte, which UTF-8 never holds: no real value can be mistaken for it. One byte more per empty
 * attribute than the Queue counts, kept for in the driver's size limit.
 */
const EMPTY_VALUE = Uint8Array.of(0xff);

/** What SQS counts beyond the Queue's name + value, at most, per attribute. */
export const ATTRIBUTE_OVERHEAD_BYTES = DATA_TYPE_BYTES + EMPTY_VALUE.length;

/** Why a message was moved to the dead letters, as far as it fits beside it there. */
export const REASON_ATTRIBUTE = 'queueport.reason';

/** SQS's String values hold XML characters only; anything else goes as Binary, byte for byte. */
const SQS_STRING = /^[\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

export function toSqsAttributes(
  attributes: Readonly<Record<string, string>>,
): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    // Both data types are 6 bytes long, so SQS counts a message's size the same either way.
    out[name] =
      value === ''
        ? { DataType: 'Binary', BinaryValue: EMPTY_VALUE }
        : SQS_STRING.test(value)
          ? { DataType: 'String', StringValue: value }
          : { DataType: 'Binary', BinaryValue: Buffer.from(value, 'utf8') };
  }
  return out;
}

/** The attributes as the application gave them; queueport's own (FIFO mark, dead-letter reason) are taken out. */
export function fromSqsAttributes(
  attributes: Readonly<Record<string, MessageAttributeValue>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!attributes) return out;
  for (const [name, value] of Object.entries(attributes)) {
    // The reason stays on a message SQS's own move task puts back from the dead letters.
    if (name === FIFO_ATTRIBUTE || name === REASON_ATTRIBUTE) continue;
    out[name] = value.StringValue ?? binaryText(value.BinaryValue);
  }
  return out;
}

function binaryText(bytes: Uint8Array | undefined): string {
  if (!bytes || (bytes.length === 1 && bytes[0] === 0xff)) return '';
  return Buffer.from(bytes).toString('utf8');
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
