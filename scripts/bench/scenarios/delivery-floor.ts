import type { PairScenario } from '../runner';
import { consumeAndSend } from '../shared/consume-and-send';
import { tempDir } from '../shared/fixtures';
import { DELIVERY_CONCURRENCY, deliveryEvents } from './delivery-sizes';
import { physicalLimitLoop } from './delivery-vs-physical-limit';

/**
 * Informative, without a target: a bound on the pipeline's own scenarios. The subject is the
 * pipeline with its ledger and its worker taken out, so the whole pipeline, which does all of
 * this and more, cannot beat it; beside the physical-limit loop, its ratio is the most
 * delivery-vs-physical-limit could show with a ledger and a worker that cost nothing.
 */
export const deliveryFloor: PairScenario = {
  kind: 'pair',
  otel: 'subject',
  name: 'delivery-floor',
  description:
    'The Queue’s consumer and the webhook sender with no ledger and no worker (the least any delivery through the Queue does), beside the physical-limit loop: an upper bound on the delivery-vs-physical-limit ratio.',
  subject: `memory queue → consumer → webhook sender POST (the handler's signal) → ack, no ledger, no worker, concurrency ${DELIVERY_CONCURRENCY}`,
  baseline: `${DELIVERY_CONCURRENCY} loops: bare SQLite INSERT (autocommit, WAL) → the same undici POST → bare SQLite UPDATE`,
  async open({ quick }) {
    const events = deliveryEvents(quick);
    const temp = tempDir('floor');
    return {
      detail: `${events} events per round, reference receiver on loopback in the same process`,
      subject: consumeAndSend(events, DELIVERY_CONCURRENCY),
      baseline: physicalLimitLoop(temp.dir, events),
      close: async () => temp.remove(),
    };
  },
};
