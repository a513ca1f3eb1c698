import { describe, expect, it } from 'vitest';
import {
  type CapabilityContract,
  type DiscoverySnapshot,
  diffSnapshots,
  driftReport,
  formatDrift,
  SNAPSHOT,
} from '../src/discovery';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
// biome-ignore lint/suspicious/noExplicitAny: the tests reach deep into plain JSON schemas to change them
type Schema = Record<string, any>;

/** A served snapshot: a deep copy of the committed one, changed by `change`. */
function served(
  change: (capabilities: Record<string, Mutable<CapabilityContract>>, s: DiscoverySnapshot) => void,
) {
  const copy = structuredClone(SNAPSHOT) as DiscoverySnapshot & {
    capabilities: Record<string, Mutable<CapabilityContract>>;
  };
  change(copy.capabilities, copy);
  return copy;
}

function request(capabilities: Record<string, Mutable<CapabilityContract>>, id: string): Schema {
  return capabilities[id]!.request as Schema;
}

function lines(change: Parameters<typeof served>[0]): string[] {
  return formatDrift(diffSnapshots(SNAPSHOT, served(change)));
}

describe('diffSnapshots', () => {
  it('finds nothing between a snapshot and itself, or a copy with keys in another order', () => {
    expect(diffSnapshots(SNAPSHOT, structuredClone(SNAPSHOT))).toEqual([]);
    const reordered = served((c) => {
      const ack = c['queue.ack']!;
      const schema = ack.request as Schema;
      ack.request = Object.fromEntries(Object.entries(schema).reverse());
      (ack.request as Schema).required = [...schema.required].reverse();
    });
    expect(diffSnapshots(SNAPSHOT, reordered)).toEqual([]);
  });

  it('ignores $comment, which is ours', () => {
    expect(diffSnapshots(SNAPSHOT, { ...SNAPSHOT, $comment: 'another' })).toEqual([]);
  });

  it('a field removed, deep inside an array', () => {
    const differences = diffSnapshots(
      SNAPSHOT,
      served((c) => {
        delete request(c, 'queue.publish_batch').properties.messages.items.properties.delay_seconds;
      }),
    );
    expect(differences).toEqual([
      {
        kind: 'field-removed',
        capability: 'queue.publish_batch',
        schema: 'request',
        field: 'messages[].delay_seconds',
        type: 'integer',
        required: false,
      },
    ]);
    expect(formatDrift(differences)).toEqual([
      'queue.publish_batch request messages[].delay_seconds: field removed (was integer, optional)',
    ]);
  });

  it('a field added, required or not', () => {
    expect(
      lines((c) => {
        const schema = request(c, 'queue.publish');
        schema.properties.region = { type: 'string' };
        schema.properties.group_id = { type: ['string', 'null'] };
        schema.required.push('region');
      }),
    ).toEqual([
      'queue.publish request region: field added (string, required)',
      'queue.publish request group_id: field added (string | null, optional)',
    ]);
  });

  it('a type changed, nullable, and a type change that replaces a whole object', () => {
    expect(
      lines((c) => {
        const schema = request(c, 'queue.publish');
        schema.properties.priority.type = 'string';
        schema.properties.delay_seconds.type = ['integer', 'null'];
        schema.properties.payload = { type: 'string' };
        (c['queue.consume']!.response as Schema).properties.messages.items.properties.delivery_count.type =
          'number';
      }),
    ).toEqual([
      'queue.consume response messages[].delivery_count: type changed integer → number',
      'queue.publish request payload: type changed object → string',
      'queue.publish request delay_seconds: type changed integer → integer | null',
      'queue.publish request priority: type changed integer → string',
    ]);
  });

  it('requiredness changed both ways', () => {
    expect(
      lines((c) => {
        const schema = request(c, 'queue.publish');
        schema.required = ['queue', 'idempotency_key'];
      }),
    ).toEqual([
      'queue.publish request payload: now optional (was required)',
      'queue.publish request idempotency_key: now required (was optional)',
    ]);
  });

  it('bounds and enums', () => {
    expect(
      lines((c) => {
        const schema = request(c, 'queue.create');
        schema.properties.type.enum = ['standard', 'fifo', 'priority'];
        schema.properties.max_retries.maximum = 100;
        delete schema.properties.message_retention_days.maximum;
        schema.properties.idempotency_key.maxLength = 64;
        request(c, 'queue.publish_batch').properties.messages.maxItems = 25;
        schema.properties.name.description = 'The queue name';
      }),
    ).toEqual([
      'queue.create request name: description added: "The queue name"',
      'queue.create request type: enum changed: added "priority"',
      'queue.create request max_retries: maximum changed 1000 → 100',
      'queue.create request message_retention_days: maximum removed (was 30)',
      'queue.create request idempotency_key: maxLength changed 255 → 64',
      'queue.publish_batch request messages: maxItems changed 10 → 25',
    ]);
  });

  it('an enum in another order is the same enum', () => {
    expect(
      lines((c) => {
        request(c, 'queue.create').properties.type.enum = ['fifo', 'standard'];
      }),
    ).toEqual([]);
  });

  it('capabilities added, removed, moved, made unavailable, regions', () => {
    const differences = diffSnapshots(
      SNAPSHOT,
      served((c, s) => {
        delete c['queue.dlq.redrive'];
        c['queue.purge'] = { ...c['queue.delete']!, path: '/v1/queue/purge/{queue}', available: false };
        c['queue.nack']!.available = false;
        c['queue.ack']!.method = 'PUT';
        c['queue.ack']!.path = '/v1/queue/ack/{queue}';
        c['queue.list']!.regions = ['ap-south', 'eu-west'];
        c['queue.list']!.summary = 'List queues';
        (s as Mutable<DiscoverySnapshot>).discovery_version = 'v2';
      }),
    );
    expect(formatDrift(differences)).toEqual([
      'discovery: version changed v1 → v2',
      'queue.ack: method changed POST → PUT',
      'queue.ack: path changed /v1/queue/ack → /v1/queue/ack/{queue}',
      'queue.dlq.redrive: capability removed (in the snapshot, not served)',
      'queue.list: region added: ap-south',
      'queue.list: region removed: us-east',
      `queue.list: summary changed ${JSON.stringify(SNAPSHOT.capabilities['queue.list']!.summary)} → "List queues"`,
      'queue.nack: now unavailable (was available)',
      'queue.purge: capability added (served, not in the snapshot; marked unavailable)',
    ]);
  });

  it('error codes added, removed, retryable or status changed', () => {
    expect(
      lines((c) => {
        const errors = c['queue.publish']!.errors as Array<{
          code: string;
          http_status: number;
          retryable: boolean;
        }>;
        errors.splice(
          errors.findIndex((e) => e.code === 'RATE_LIMITED'),
          1,
        );
        errors.find((e) => e.code === 'INTERNAL_ERROR')!.retryable = false;
        errors.find((e) => e.code === 'PAYLOAD_TOO_LARGE')!.http_status = 422;
        errors.push({ code: 'QUEUE_PAUSED', http_status: 409, retryable: true });
      }),
    ).toEqual([
      'queue.publish errors INTERNAL_ERROR: retryable changed true → false',
      'queue.publish errors PAYLOAD_TOO_LARGE: HTTP status changed 413 → 422',
      'queue.publish errors QUEUE_PAUSED: error code added (HTTP 409, retryable)',
      'queue.publish errors RATE_LIMITED: error code removed',
    ]);
  });

  it('tuple items and schema roots', () => {
    expect(
      lines((c) => {
        c['queue.list']!.request = { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] };
      }),
    ).toEqual(['queue.list request: type changed object → array']);
    const before = served((c) => {
      c['queue.list']!.request = { type: 'array', items: [{ type: 'string' }] };
    });
    const after = served((c) => {
      c['queue.list']!.request = { type: 'array', items: [{ type: 'number' }, { type: 'integer' }] };
    });
    expect(formatDrift(diffSnapshots(before, after))).toEqual([
      'queue.list request [0]: type changed string → number',
      'queue.list request [1]: field added (integer, required)',
    ]);
  });

  it('still reports what it cannot itemize', () => {
    const differences = diffSnapshots(
      SNAPSHOT,
      served((c) => {
        request(c, 'queue.ack').required.push('queue');
      }),
    );
    expect(formatDrift(differences)).toEqual([
      'queue.ack: contract changed (in a way not itemized: compare the snapshot files)',
    ]);
  });
});

describe('driftReport', () => {
  it('is JSON as is, each difference with its location and sentence', () => {
    const report = driftReport(
      diffSnapshots(
        SNAPSHOT,
        served((c) => {
          delete request(c, 'queue.ack').properties.receipt_handle.minLength;
        }),
      ),
    );
    expect(JSON.parse(JSON.stringify(report))).toEqual({
      matches: false,
      count: 1,
      differences: [
        {
          kind: 'constraint-changed',
          capability: 'queue.ack',
          schema: 'request',
          field: 'receipt_handle',
          keyword: 'minLength',
          from: 1,
          location: 'queue.ack request receipt_handle',
          message: 'minLength removed (was 1)',
        },
      ],
    });
    expect(driftReport([])).toEqual({ matches: true, count: 0, differences: [] });
  });
});
