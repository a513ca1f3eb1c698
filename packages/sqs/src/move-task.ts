import {
  ListMessageMoveTasksCommand,
  type ListMessageMoveTasksCommandOutput,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { QueueError } from '@queueport/core/driver';
import type { SqsCommand } from './call-bounds';

/** A redrive this long is left running on SQS's side; the caller is told how far it got. */
const WAIT_MS = 60_000;
const POLL_MS = 500;

/**
 * Moves every dead letter back with one of SQS's message-move tasks and waits for it to end.
 * Returns how many moved, or undefined where the server has no move tasks (moto and local
 * emulators answer with something else than SQS's JSON), so the caller moves them itself.
 */
export async function moveTaskRedrive(
  send: <T>(command: SqsCommand) => Promise<T>,
  deadLetterArn: string,
  queueArn: string,
): Promise<number | undefined> {
  try {
    await send(new StartMessageMoveTaskCommand({ SourceArn: deadLetterArn, DestinationArn: queueArn }));
  } catch (error) {
    if (isUnsupported(error)) return undefined;
    throw error;
  }
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const { Results } = await send<ListMessageMoveTasksCommandOutput>(
      new ListMessageMoveTasksCommand({ SourceArn: deadLetterArn, MaxResults: 1 }),
    );
    const task = Array.isArray(Results) ? Results[0] : undefined;
    const reported = task?.ApproximateNumberOfMessagesMoved;
    const moved = Number.isSafeInteger(reported) && reported! >= 0 ? reported! : 0;
    if (task?.Status === 'COMPLETED') return moved;
    if (task?.Status === 'FAILED' || task?.Status === 'CANCELLED') {
      throw new QueueError(
        'UNAVAILABLE',
        `sqs: the dead-letter redrive ${task.Status.toLowerCase()} after ${moved} messages`,
        {
          details: { moved },
        },
      );
    }
    if (Date.now() >= until) return moved;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function isUnsupported(error: unknown): boolean {
  const e = error as { name?: string; $fault?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'UnsupportedOperation' || e?.name === 'UnknownOperationException') return true;
  if (e?.name === 'InvalidAction' || e?.name === 'InvalidParameterValue') return true;
  // An answer the SDK could not read as SQS JSON: not an SQS that knows this operation.
  return (
    e?.name === 'SyntaxError' ||
    (e?.$metadata?.httpStatusCode ?? 0) === 404 ||
    (e?.$metadata?.httpStatusCode ?? 0) === 501
  );
}
