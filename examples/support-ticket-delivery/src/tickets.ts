import type { JsonValue } from '@queueport/core';

/** The `ticket.closed` payload: the ticket, its resolution and its whole conversation. */
export interface ClosedTicket {
  [key: string]: JsonValue;
  ticket_id: string;
  subject: string;
  customer_id: string;
  closed_by: string;
  resolution: string;
  closed_at: string;
  transcript: TranscriptMessage[];
}

export interface TranscriptMessage {
  [key: string]: JsonValue;
  seq: number;
  at: string;
  author: 'customer' | 'agent';
  text: string;
}

export interface TicketSpec {
  ticketId: string;
  subject: string;
  /** Roughly how large the canonical JSON of the whole payload is to be. */
  transcriptBytes: number;
}

const WORDS = (
  'order refund invoice shipment delayed tracking number warehouse replacement charged twice ' +
  'card declined subscription renewal cancel account password reset export report dashboard ' +
  'timeout error screenshot attached escalated engineering workaround confirmed resolved thanks'
).split(' ');

/**
 * A closed ticket with a long, deterministic conversation: the same spec always gives the same
 * bytes, so the same digest. Messages are added until the payload reaches `transcriptBytes`.
 */
export function closedTicket(spec: TicketSpec): ClosedTicket {
  const random = mulberry32(seedOf(spec.ticketId));
  const started = Date.parse('2025-03-03T08:00:00.000Z');
  const ticket: ClosedTicket = {
    ticket_id: spec.ticketId,
    subject: spec.subject,
    customer_id: `cust_${spec.ticketId.replace(/\D/g, '')}`,
    closed_by: 'agent_rosa',
    resolution: 'refund approved and replacement shipped',
    closed_at: '',
    transcript: [],
  };
  // Every character is ASCII and every number an integer, so JSON.stringify's length is the
  // canonical length (keys sorted or not): the size can be counted while building.
  let size = JSON.stringify(ticket).length;
  let at = started;
  for (let seq = 1; size < spec.transcriptBytes; seq++) {
    at += 30_000 + Math.floor(random() * 600_000);
    const length = 12 + Math.floor(random() * 60);
    const words: string[] = [];
    for (let i = 0; i < length; i++) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    const message: TranscriptMessage = {
      seq,
      at: new Date(at).toISOString(),
      author: seq % 2 === 1 ? 'customer' : 'agent',
      text: words.join(' '),
    };
    ticket.transcript.push(message);
    size += JSON.stringify(message).length + 1;
  }
  ticket.closed_at = new Date(at + 60_000).toISOString();
  return ticket;
}

function seedOf(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
