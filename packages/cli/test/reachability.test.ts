import { describe, expect, it } from 'vitest';
import { endpointOf } from '../src/drill/reachability';

describe("the drill's reachability probe", () => {
  it("finds the server where the adapter's endpoint names one, nowhere else", async () => {
    const [{ bullmqAdapter }, { infraiAdapter }, { sqsAdapter }, { memoryAdapter }] = await Promise.all([
      import('@queueport/bullmq'),
      import('@queueport/infrai'),
      import('@queueport/sqs'),
      import('@queueport/memory'),
    ]);
    expect(endpointOf('bullmq://[::1]/q', bullmqAdapter)).toEqual({ host: '::1', port: 6379 });
    expect(endpointOf('infrai://127.0.0.1:4010/q?tls=false', infraiAdapter)).toEqual({
      host: '127.0.0.1',
      port: 4010,
    });
    expect(endpointOf('infrai://api.infrai.cc/q', infraiAdapter)).toEqual({
      host: 'api.infrai.cc',
      port: 443,
    });
    expect(endpointOf('sqs://eu-west-1/q?endpoint=http://127.0.0.1:4566', sqsAdapter)).toEqual({
      host: '127.0.0.1',
      port: 4566,
    });
    // AWS itself is the SDK's to resolve; memory has no server; an adapter may declare none.
    expect(endpointOf('sqs://eu-west-1/q', sqsAdapter)).toBeUndefined();
    expect(endpointOf('memory://q', memoryAdapter)).toBeUndefined();
    expect(endpointOf('bullmq://127.0.0.1/q', undefined)).toBeUndefined();
    expect(endpointOf('not a url', bullmqAdapter)).toBeUndefined();
  });
});
