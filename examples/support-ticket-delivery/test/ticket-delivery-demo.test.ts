import { canonicalJson, MAX_BODY_BYTES, sha256Hex } from '@queueport/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runTicketDeliveryDemo, TICKETS, type TicketDeliverySummary } from '../src/ticket-delivery-demo';
import { closedTicket } from '../src/tickets';

describe('support ticket delivery example', () => {
  let summary: TicketDeliverySummary;
  beforeAll(async () => {
    summary = await runTicketDeliveryDemo();
  });
  const ticket = (id: string) => summary.tickets.find((t) => t.ticketId === id)!;

  it('files every intact ticket exactly once, although one was published twice', () => {
    expect(summary.tickets.map((t) => [t.ticketId, t.effects, t.archived, t.ledgerState])).toEqual([
      ['ticket_5001', 1, 1, 'delivered'],
      ['ticket_5002', 1, 1, 'delivered'],
      ['ticket_5003', 0, 0, 'failed'],
    ]);
    // The duplicate was not absorbed by the queue (it dedupes nothing): it reached the worker,
    // and the ledger settled it without a second request to the helpdesk.
    const publishesOf5001 = summary.publishes.filter((p) => p.eventId === 'ticket_5001:closed:v1');
    expect(publishesOf5001.map((p) => p.duplicate)).toEqual([false, false]);
    expect(summary.reports.filter((r) => r.eventId === 'ticket_5001:closed:v1').map((r) => r.result)).toEqual(
      ['delivered', 'already-settled'],
    );
  });

  it('files the transcript the publisher published, verified by its sha256', () => {
    for (const spec of TICKETS.filter((t) => !t.tamper)) {
      // Recomputed here from the ticket itself, independently of the blob store.
      const expected = closedTicket(spec);
      const digest = sha256Hex(canonicalJson(expected, { maxBytes: 16 * 1024 * 1024 }));
      const filed = summary.archive.filter((a) => a.ticketId === spec.ticketId);
      expect(filed).toHaveLength(1);
      expect(filed[0]).toMatchObject({
        sha256: digest,
        messages: expected.transcript.length,
        transcriptBytes: ticket(spec.ticketId).transcriptBytes,
      });
      expect(ticket(spec.ticketId).sha256).toBe(digest);
    }
  });

  it('refuses a transcript changed after its publish, for good and without filing it', () => {
    const tampered = ticket('ticket_5003');
    expect(tampered.tampered).toBe(true);
    expect(tampered.refusal).toMatchObject({ problem: 'digest-mismatch', status: 422 });
    expect(tampered.refusal?.detail).toContain(tampered.sha256);
    expect(summary.archive.some((a) => a.ticketId === 'ticket_5003')).toBe(false);
    // 422 is final: one attempt, recorded as failed in the ledger, no retry of a blob that cannot heal.
    expect(tampered.ledgerOutcome).toBe('http 422');
    expect(summary.reports.filter((r) => r.eventId === 'ticket_5003:closed:v1').map((r) => r.result)).toEqual(
      ['failed'],
    );
  });

  it('keeps the envelope within the portable limit while the transcript is far over it', () => {
    expect(summary.portableLimitBytes).toBe(MAX_BODY_BYTES);
    for (const t of summary.tickets) {
      expect(t.envelopeBytes).toBeLessThan(1024);
      expect(t.transcriptBytes).toBeGreaterThan(MAX_BODY_BYTES);
    }
    expect(ticket('ticket_5001').transcriptBytes).toBeGreaterThanOrEqual(4 * MAX_BODY_BYTES);
    // Inline, the same ticket is refused before anything is sent.
    expect(summary.inlinePublish).toMatchObject({ refused: true, code: 'PAYLOAD_TOO_LARGE' });
  });
});
