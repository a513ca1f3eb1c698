import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { type PairScenario, timed } from '../runner';
import { subjectObservers } from '../shared/bench-telemetry';
import { concurrently, encodedEvents, tempDir, waitForEffects } from '../shared/fixtures';
import { rawPoster } from '../shared/http';
import { deliveryPipeline } from '../shared/pipeline';
import { DELIVERY_CONCURRENCY, deliveryEvents, PIPELINE_REMAINS, PIPELINE_SUBJECT } from './delivery-sizes';

export const deliveryVsRawPost: PairScenario = {
  kind: 'pair',
  otel: 'subject',
  name: 'delivery-vs-raw-post',
  description:
    'The whole delivery path beside the HTTP exchange alone: how much of the receiver-bound throughput the queue, consumer and ledger leave.',
  subject: PIPELINE_SUBJECT,
  baseline: `raw undici POST loop of the same bodies to the same receiver, concurrency ${DELIVERY_CONCURRENCY}`,
  targets: [{ metric: 'ratio', atLeast: 0.6 }],
  remains: PIPELINE_REMAINS,
  async open({ quick }) {
    const events = deliveryEvents(quick);
    const temp = tempDir('delivery');
    return {
      detail: `${events} events per round, reference receiver on loopback in the same process`,
      subject: deliveryPipeline(temp.dir, events, DELIVERY_CONCURRENCY, subjectObservers()),
      baseline: async (label) => {
        const receiver = await startReferenceReceiver({ mode: 'idempotent' });
        const poster = rawPoster(DELIVERY_CONCURRENCY);
        const bodies = encodedEvents(label, events);
        try {
          return await timed(async () => {
            await concurrently(bodies, DELIVERY_CONCURRENCY, (event) => poster.post(receiver.url, event));
            await waitForEffects(receiver, events);
            return events;
          });
        } finally {
          await poster.close();
          await receiver.close();
        }
      },
      close: async () => temp.remove(),
    };
  },
};
