import type { Delivery } from './delivery';
import type { Queue } from './queue';

/**
 * A queue or delivery of any event map, for code that never reads a payload's type (the webhook
 * worker, giving up a delivery, the conformance suite). A typed `Queue<E>` is not assignable to
 * the plain `Queue`: its envelope type depends on `keyof E`, which TypeScript measures as
 * contravariant. `any` is the one type argument every map is assignable to.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one type argument every event map is assignable to
export type AnyQueue = Queue<any>;
// biome-ignore lint/suspicious/noExplicitAny: as above
export type AnyDelivery = Delivery<any>;
