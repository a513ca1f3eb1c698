import {
  consumerRedelivery,
  dedupe,
  leaseExpiry,
  ordering,
  roundTrip,
  virtualTimeHarness,
} from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { simulatedQueue } from './support/simulated-infrai';

// The whole suite over HTTP against the simulator, on virtual time: the simulator and the
// Queue share each run's VirtualClock, so visibility timeouts, 7-day delays, the 24 h
// idempotency window and the 30-day retention are checked without waiting.
describeConformance(
  'infrai (simulator)',
  virtualTimeHarness('infrai', (clock) => simulatedQueue(clock), {
    numRuns: 15,
    createMissingDriver: (clock) => simulatedQueue(clock, { missing: true }),
    inspects: true,
  }),
);

// A FIFO queue keeps publish order for one consumer (Infrai documents no message groups).
describeConformance(
  'infrai fifo (simulator)',
  virtualTimeHarness('infrai fifo', (clock) => simulatedQueue(clock, { fifo: true }), {
    numRuns: 15,
    inspects: true,
  }),
  { properties: [ordering, roundTrip, dedupe, leaseExpiry, consumerRedelivery] },
);
