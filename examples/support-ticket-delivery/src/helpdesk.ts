import { decodeEnvelope, type Envelope, type JsonValue } from '@queueport/core';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { fetchByRef, PayloadRefError, type PayloadRefProblem } from './blob-store';
import type { ClosedTicket } from './tickets';

/** What the helpdesk did for one closed ticket: filed it with its verified transcript. */
export interface ArchivedTicket {
  eventId: string;
  ticketId: string;
  messages: number;
  transcriptBytes: number;
  /** The digest the helpdesk computed over the bytes it read (equal to the envelope's). */
  sha256: string;
}

export interface Refusal {
  eventId: string;
  problem: PayloadRefProblem | 'invalid-envelope' | 'unknown-type';
  status: number;
  detail: string;
}

export interface Helpdesk {
  /** Post webhooks here. */
  url: string;
  /** Every ticket filed, in order: one entry per effect. */
  archived(): ArchivedTicket[];
  /** Every request answered with a refusal, and why. */
  refusals(): Refusal[];
  /** The reference receiver's own count of effects (2xx answers) for one event id. */
  effectCount(eventId: string): number;
  requests(): number;
  close(): Promise<void>;
}

export interface HelpdeskOptions {
  /** The Standard Webhooks signing secret shared with the delivery worker. */
  secret: string;
  /** The one blob store references may point into. */
  trustedBlobRoot: string;
}

/**
 * The helpdesk's webhook endpoint: the reference receiver (signatures checked, one effect per
 * signed webhook-id), whose handler follows the envelope's `payload_ref`, checks the bytes
 * against its sha256, and only then files the ticket. A blob that does not match is answered
 * 422, which the worker treats as final: sending the same reference again cannot make the bytes
 * right, and filing a transcript nobody published is the one thing this endpoint must not do.
 */
export async function startHelpdesk(options: HelpdeskOptions): Promise<Helpdesk> {
  const archived: ArchivedTicket[] = [];
  const refusals: Refusal[] = [];
  const refuse = (eventId: string, problem: Refusal['problem'], status: number, detail: string) => {
    refusals.push({ eventId, problem, status, detail });
    return status;
  };

  const receiver: ReferenceReceiver = await startReferenceReceiver({
    mode: 'idempotent',
    secrets: [options.secret],
    respond: async ({ eventId, body }) => {
      let envelope: Envelope;
      try {
        envelope = decodeEnvelope(body);
      } catch (error) {
        return refuse(eventId, 'invalid-envelope', 400, (error as Error).message);
      }
      if (envelope.type !== 'ticket.closed') {
        return refuse(eventId, 'unknown-type', 422, `no handler for ${envelope.type}`);
      }
      let ticket: JsonValue;
      let bytes: number;
      let sha256: string;
      if (envelope.payload_ref) {
        try {
          ({
            value: ticket,
            bytes,
            sha256,
          } = await fetchByRef(envelope.payload_ref, options.trustedBlobRoot));
        } catch (error) {
          if (!(error instanceof PayloadRefError)) throw error;
          // A blob not there yet may arrive (a replicating store): retry. Anything else is final.
          return refuse(eventId, error.problem, error.problem === 'missing' ? 503 : 422, error.message);
        }
      } else {
        // A small ticket may come inline: core already checked it against payload_sha256.
        ticket = envelope.payload;
        bytes = Buffer.byteLength(JSON.stringify(ticket));
        sha256 = envelope.payload_sha256;
      }
      const closed = ticket as ClosedTicket;
      archived.push({
        eventId: envelope.event_id,
        ticketId: closed.ticket_id,
        messages: closed.transcript.length,
        transcriptBytes: bytes,
        sha256,
      });
      return 200;
    },
  });

  return {
    url: receiver.url,
    archived: () => archived.map((entry) => ({ ...entry })),
    refusals: () => refusals.map((entry) => ({ ...entry })),
    effectCount: (eventId) => receiver.effectCount(eventId),
    requests: () => receiver.requests(),
    close: () => receiver.close(),
  };
}
