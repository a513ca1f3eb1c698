import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, isQueueError, MAX_BODY_BYTES, Queue } from '@queueport/core';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender, type DeliveryReport, DeliveryWorker } from '@queueport/webhook';
import { ContentAddressedStore, MAX_BLOB_BYTES, type StoredBlob } from './blob-store';
import { type ArchivedTicket, type Refusal, startHelpdesk } from './helpdesk';
import { eventIdOf, publishClosedTicket } from './publisher';
import { type ClosedTicket, closedTicket, type TicketSpec } from './tickets';

export interface TicketOutcome {
  ticketId: string;
  eventId: string;
  /** Bytes of the canonical JSON of the ticket with its transcript, as stored. */
  transcriptBytes: number;
  /** Bytes of the message that went through the queue (envelope and attributes). */
  envelopeBytes: number;
  sha256: string;
  /** Whether the demo changed the stored blob after publishing. */
  tampered: boolean;
  /** Effects at the helpdesk (2xx answers), as the reference receiver counts them. */
  effects: number;
  /** Times the helpdesk filed the ticket. */
  archived: number;
  ledgerState: string | undefined;
  ledgerOutcome: string | null | undefined;
  /** Why the helpdesk refused it, if it did. */
  refusal: Refusal | undefined;
}

export interface TicketDeliverySummary {
  portableLimitBytes: number;
  /** The first ticket published inline instead, to show why it is not. */
  inlinePublish: { refused: boolean; code: string | undefined; message: string | undefined };
  publishes: Array<{ eventId: string; duplicate: boolean; sizeBytes: number }>;
  tickets: TicketOutcome[];
  archive: ArchivedTicket[];
  reports: DeliveryReport[];
}

export const TICKETS: ReadonlyArray<TicketSpec & { tamper?: boolean }> = [
  // 1 MiB: four times the portable limit on a message.
  { ticketId: 'ticket_5001', subject: 'Charged twice for order 88120', transcriptBytes: 1_048_576 },
  // Just over the limit: still by reference, since inline it would not fit.
  { ticketId: 'ticket_5002', subject: 'Export report times out', transcriptBytes: 300_000 },
  // Its stored blob is rewritten after the publish: the helpdesk must refuse it.
  { ticketId: 'ticket_5003', subject: 'Subscription renewal failed', transcriptBytes: 600_000, tamper: true },
];

/**
 * Three closed tickets, each with a transcript past the portable 256 KB message limit (the first
 * at 1 MiB, past even SQS's own limit), delivered to a helpdesk as signed webhooks that carry
 * only a reference. The publisher stores each ticket in a
 * content-addressed blob store and publishes `payload_ref: { uri, sha256 }`; the helpdesk
 * fetches by the reference and verifies the digest before filing. On the way the publisher
 * publishes one ticket twice (on a queue that absorbs no duplicate, so the worker really sees
 * it), and one stored transcript is altered after its publish. Each intact ticket is filed
 * exactly once; the altered one is never filed.
 */
export async function runTicketDeliveryDemo(
  log: (line: string) => void = () => {},
): Promise<TicketDeliverySummary> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const blobs = await ContentAddressedStore.temporary('queueport-ticket-blobs-');
  const ledgerDir = await mkdtemp(join(tmpdir(), 'queueport-ticket-ledger-'));
  const helpdesk = await startHelpdesk({ secret, trustedBlobRoot: blobs.root });
  // Like a standard SQS queue: no dedupe at all, so a duplicate publish reaches the worker and
  // the ledger is what keeps it to one effect.
  const queue = new Queue(new MemoryDriver({ dedupe: { kind: 'none' } }));
  const ledger = await openSqliteLedger({ filename: join(ledgerDir, 'ledger.sqlite') });
  // Loopback and plain HTTP are refused by default; the demo helpdesk lives on 127.0.0.1.
  const sender = createWebhookSender({
    ssrf: { allowHttp: true, allowLoopback: true },
    requestTimeoutMs: 2_000,
  });
  const destination = { id: 'helpdesk', url: helpdesk.url, secrets: [secret] };
  const reports: DeliveryReport[] = [];
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender,
    workerId: 'ticket-worker',
    route: () => destination,
    ledgerLeaseSeconds: 3,
    leaseMarginSeconds: 1,
    retry: { maxAttempts: 3, baseMs: 200, maxMs: 1_000, jitter: 0 },
    onReport: (report) => {
      reports.push(report);
      const detail = report.outcome && 'status' in report.outcome ? ` (http ${report.outcome.status})` : '';
      log(`worker: ${report.eventId} → ${report.result}${detail}`);
    },
  });

  try {
    const tickets = TICKETS.map((spec) => ({ spec, ticket: closedTicket(spec) }));

    // Inline, the first ticket is refused before anything is sent: it cannot go through a queue.
    const inlinePublish = await tryInline(queue, tickets[0]!.ticket);
    log(
      `publisher: ${tickets[0]!.spec.ticketId} inline → ${inlinePublish.refused ? `refused (${inlinePublish.code})` : 'accepted?!'}`,
    );

    const publishes: TicketDeliverySummary['publishes'] = [];
    const stored = new Map<string, StoredBlob & { envelopeBytes: number }>();
    for (const { spec, ticket } of tickets) {
      const { blob, receipt } = await publishClosedTicket(queue, blobs, ticket);
      publishes.push({
        eventId: receipt.eventId,
        duplicate: receipt.duplicate,
        sizeBytes: receipt.sizeBytes,
      });
      stored.set(spec.ticketId, { ...blob, envelopeBytes: receipt.sizeBytes });
      log(
        `publisher: ${spec.ticketId}: ${blob.bytes} B stored as ${blob.sha256.slice(0, 12)}…, ${receipt.sizeBytes} B envelope published`,
      );
    }

    // The publisher's retry after a timeout it could not read: the same ticket, published again.
    const again = await publishClosedTicket(queue, blobs, tickets[0]!.ticket);
    publishes.push({
      eventId: again.receipt.eventId,
      duplicate: again.receipt.duplicate,
      sizeBytes: again.receipt.sizeBytes,
    });
    log(
      `publisher: ${tickets[0]!.spec.ticketId} published again (${again.receipt.duplicate ? 'absorbed by the queue' : 'the queue took it as a new message'})`,
    );

    // Between the publish and the delivery, something rewrites a stored transcript in place.
    for (const { spec } of tickets.filter(({ spec }) => spec.tamper)) {
      await tamperWith(blobs.pathOf(stored.get(spec.ticketId)!.sha256));
      log(`someone: rewrote the stored blob of ${spec.ticketId} (resolution changed)`);
    }

    const eventIds = tickets.map(({ spec }) => eventIdOf(spec.ticketId));
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const [delivery] = await queue.receive({ leaseSeconds: 15 });
      if (delivery) {
        await worker.process(delivery);
        continue;
      }
      const states = await Promise.all(eventIds.map((id) => ledger.get(id)));
      if (states.every((s) => s && s.state !== 'processing')) break;
      // A retry is scheduled: its delivery becomes visible again shortly.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const archive = helpdesk.archived();
    const refusals = helpdesk.refusals();
    const outcomes: TicketOutcome[] = [];
    for (const { spec } of tickets) {
      const eventId = eventIdOf(spec.ticketId);
      const record = await ledger.get(eventId);
      const ref = stored.get(spec.ticketId)!;
      outcomes.push({
        ticketId: spec.ticketId,
        eventId,
        transcriptBytes: ref.bytes,
        envelopeBytes: ref.envelopeBytes,
        sha256: ref.sha256,
        tampered: spec.tamper === true,
        effects: helpdesk.effectCount(eventId),
        archived: archive.filter((a) => a.eventId === eventId).length,
        ledgerState: record?.state,
        ledgerOutcome: record?.lastOutcome,
        refusal: refusals.find((r) => r.eventId === eventId),
      });
    }
    return {
      portableLimitBytes: MAX_BODY_BYTES,
      inlinePublish,
      publishes,
      tickets: outcomes,
      archive,
      reports,
    };
  } finally {
    await queue.close();
    await sender.close();
    await helpdesk.close();
    await ledger.close();
    await blobs.destroy();
    await rm(ledgerDir, { recursive: true, force: true });
  }
}

/** What a careless redaction job would do: edit the stored JSON in place, under the same name. */
async function tamperWith(path: string): Promise<void> {
  const ticket = JSON.parse(await readFile(path, 'utf8')) as ClosedTicket;
  ticket.resolution = 'refund denied';
  await writeFile(path, canonicalJson(ticket, { maxBytes: MAX_BLOB_BYTES }));
}

async function tryInline(
  queue: Queue,
  ticket: ClosedTicket,
): Promise<TicketDeliverySummary['inlinePublish']> {
  try {
    await queue.publish({
      envelope: { event_id: eventIdOf(ticket.ticket_id), type: 'ticket.closed', payload: ticket },
    });
    return { refused: false, code: undefined, message: undefined };
  } catch (error) {
    if (!isQueueError(error)) throw error;
    return { refused: true, code: error.code, message: error.message };
  }
}
