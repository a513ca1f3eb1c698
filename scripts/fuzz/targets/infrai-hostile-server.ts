/**
 * The Infrai driver against a hostile loopback server: each case is one call (receive, ack,
 * release or publish) answered with whatever the case says: any status (3xx included),
 * `ok: false` with odd errors, fields of the wrong type, request ids and messages echoing the
 * Authorization header, more messages than asked, bodies past the size bound, slow answers and
 * drips past the deadline, a dropped socket. Whatever the answer, the call settles within its
 * deadline plus a margin, fails only with a QueueError, confirms only what the server confirmed,
 * hands out at most what was asked with every receipt and count well-formed, and the API key (one
 * without Infrai's `ifr_` prefix) is in no error.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InfraiDriver } from '@queueport/infrai';
import fc from 'fast-check';
import { afterTarget, check, isTypedError } from '../context';
import type { FuzzTarget } from './fuzz-target';

const MIN_CASES = 1000;
const KEY = 'sk_fuzz_hostile_7c6b5a4d3e2f1a0b';
const TIMEOUT_MS = 300;
/** Deadline slots fire at most 50 ms late; a loaded machine takes the rest. */
const SETTLE_WITHIN_MS = TIMEOUT_MS + 2_000;
const QUEUE = 'orders';

type Operation = 'receive' | 'ack' | 'release' | 'publish';

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** What the body is made of; `data` is put in an envelope unless `raw` says otherwise. */
  body:
    | { kind: 'envelope'; ok: unknown; data: unknown; error: unknown; requestId: unknown }
    | { kind: 'raw'; text: string }
    | { kind: 'huge'; bytes: number; declared: boolean }
    | { kind: 'drip'; everyMs: number }
    | { kind: 'slow'; delayMs: number }
    | { kind: 'drop' };
}

interface Case {
  operation: Operation;
  maxMessages: number;
  answer: Answer;
}

// ----------------------------------------------------------------------------------------------
// Generators

const AUTH = '\u0000auth\u0000'; // stands for the Authorization header the server received
const oddScalar = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    Number.MAX_VALUE,
    '',
    'x',
    [],
    {},
    AUTH,
    KEY,
    `Bearer ${KEY}`,
  ),
  fc.string({ maxLength: 20 }),
  fc.integer(),
);
const maybeOdd = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: oddScalar as fc.Arbitrary<unknown> });

const message = fc.record({
  message_id: maybeOdd(fc.stringMatching(/^[a-z0-9-]{1,12}$/)),
  receipt_handle: maybeOdd(fc.stringMatching(/^[A-Za-z0-9]{1,16}$/)),
  delivery_count: maybeOdd(fc.integer({ min: 1, max: 30 })),
  payload: maybeOdd(
    fc.oneof(
      fc.constant({ queueport: 1, envelope: { event_id: 'e1' } }),
      fc.record({
        queueport: fc.constant(1),
        envelope: fc.jsonValue({ maxDepth: 2 }),
        attributes: oddScalar,
      }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  ),
});

const dataFor: Record<Operation, fc.Arbitrary<unknown>> = {
  receive: fc.oneof(
    fc.record({ messages: fc.array(message, { maxLength: 14 }) }),
    fc.integer({ min: 11, max: 3000 }).map((n) => ({
      messages: Array.from({ length: n }, (_, i) => ({
        message_id: `m${i}`,
        receipt_handle: `r${i}`,
        delivery_count: 1,
        payload: { queueport: 1, envelope: {} },
      })),
    })),
    fc.record({ messages: oddScalar }),
  ),
  ack: fc.record({ acknowledged: maybeOdd(fc.boolean()) }, { requiredKeys: [] }),
  release: fc.record(
    { requeued: maybeOdd(fc.boolean()), dead_lettered: maybeOdd(fc.boolean()) },
    { requiredKeys: [] },
  ),
  publish: fc.record({
    results: fc.oneof(
      fc.array(
        fc.record(
          {
            ok: maybeOdd(fc.boolean()),
            message_id: maybeOdd(fc.stringMatching(/^[a-z0-9]{1,8}$/)),
            error: maybeOdd(
              fc.record({
                code: maybeOdd(fc.constantFrom('IDEMPOTENCY_CONFLICT', 'VALIDATION_ERROR')),
                message: oddScalar,
                retryable: oddScalar,
              }),
            ),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
      oddScalar,
    ),
  }),
};

const errorObject = fc.oneof(
  fc.constant(null),
  oddScalar,
  fc.record(
    {
      code: maybeOdd(
        fc.constantFrom(
          'QUEUE_NOT_FOUND',
          'RATE_LIMITED',
          'RECEIPT_HANDLE_INVALID',
          'INSUFFICIENT_CREDIT',
          'NOPE',
        ),
      ),
      message: oddScalar,
      hint: oddScalar,
      retryable: oddScalar,
    },
    { requiredKeys: [] },
  ),
);

const status = fc.oneof(
  { weight: 6, arbitrary: fc.constant(200) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      201,
      204,
      301,
      302,
      304,
      307,
      308,
      400,
      401,
      402,
      404,
      409,
      413,
      429,
      500,
      502,
      503,
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }) },
);

const headers = fc.record(
  {
    'x-request-id': fc.oneof(
      fc.constantFrom(AUTH, KEY, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'a b'),
      fc.string({ maxLength: 10 }),
    ),
    'retry-after': fc.oneof(
      fc.constantFrom(AUTH, '1', '99999999999', 'Thu, 01 Jan 2099 00:00:00 GMT', '-1'),
      fc.string({ maxLength: 8 }),
    ),
  },
  { requiredKeys: [] },
);

function bodyFor(operation: Operation): fc.Arbitrary<Answer['body']> {
  return fc.oneof(
    {
      weight: 20,
      arbitrary: fc.record({
        kind: fc.constant('envelope' as const),
        ok: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: oddScalar }),
        data: fc.oneof({ weight: 5, arbitrary: dataFor[operation] }, { weight: 1, arbitrary: oddScalar }),
        error: errorObject,
        requestId: fc.oneof(fc.constantFrom(AUTH, KEY, undefined, 'req-1'), oddScalar),
      }),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.constantFrom('', 'not json', '[]', 'null', '{"ok":true', `{"ok":false,"error":"${AUTH}"}`),
          fc.string({ maxLength: 30 }),
        )
        .map((text) => ({ kind: 'raw' as const, text })),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('huge' as const),
        bytes: fc.integer({ min: 16, max: 24 }).map((mib) => mib * 1024 * 1024),
        declared: fc.boolean(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('drip' as const),
        everyMs: fc.integer({ min: 20, max: 120 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('slow' as const), delayMs: fc.integer({ min: 0, max: 600 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
  );
}

const caseArb: fc.Arbitrary<Case> = fc
  .constantFrom<Operation>('receive', 'ack', 'release', 'publish')
  .chain((operation) =>
    fc.record({
      operation: fc.constant(operation),
      maxMessages: fc.integer({ min: 1, max: 10 }),
      answer: fc.record({ status, headers, body: bodyFor(operation) }),
    }),
  );

// ----------------------------------------------------------------------------------------------
// The server

const QUEUE_LIST = JSON.stringify({
  ok: true,
  data: {
    queues: [
      {
        name: QUEUE,
        type: 'standard',
        dead_letter_queue: null,
        max_retries: 3,
        message_retention_days: 4,
        visibility_timeout_default: 30,
      },
    ],
  },
  error: null,
  metadata: { request_id: 'list-1' },
});

/** Puts the Authorization header the server got wherever the case put AUTH. */
function echo(value: unknown, auth: string): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null)
      .split(JSON.stringify(AUTH).slice(1, -1))
      .join(auth),
  );
}

function answer(res: ServerResponse, planned: Answer, auth: string): void {
  const head = Object.fromEntries(
    Object.entries(planned.headers).map(([name, value]) => [name, value.split(AUTH).join(auth)]),
  );
  const body = planned.body;
  switch (body.kind) {
    case 'envelope': {
      const text = JSON.stringify(
        echo(
          { ok: body.ok, data: body.data, error: body.error, metadata: { request_id: body.requestId } },
          auth,
        ),
      );
      res
        .writeHead(planned.status, head)
        .end(planned.status === 204 || planned.status === 304 ? undefined : text);
      return;
    }
    case 'raw':
      res
        .writeHead(planned.status, head)
        .end(planned.status === 204 || planned.status === 304 ? undefined : body.text.split(AUTH).join(auth));
      return;
    case 'huge': {
      res.writeHead(200, body.declared ? { 'content-length': String(body.bytes) } : {});
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let sent = 0;
      const next = () => {
        if (res.destroyed) return;
        if (sent + chunk.length > body.bytes) return void res.end();
        sent += chunk.length;
        if (res.write(chunk)) setImmediate(next);
        else res.once('drain', next);
      };
      res.write('{"ok":true,"data":"');
      sent += 19;
      next();
      return;
    }
    case 'drip': {
      res.writeHead(200, head);
      res.write('{"ok":true,"data":{');
      const timer = setInterval(() => res.write(' '), body.everyMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'slow': {
      const timer = setTimeout(() => res.writeHead(200).end(QUEUE_LIST), body.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    case 'drop':
      res.socket?.destroy();
      return;
  }
}

interface Setup {
  driver: InfraiDriver;
  plan: { current: Answer | undefined };
}

async function startSetup(): Promise<Setup> {
  const plan: Setup['plan'] = { current: undefined };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/queue/list')
        return void res.writeHead(200).end(QUEUE_LIST);
      const planned = plan.current;
      if (!planned) return void res.writeHead(500).end();
      try {
        answer(res, planned, req.headers.authorization ?? '');
      } catch {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const driver = await InfraiDriver.open({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: KEY,
    queue: QUEUE,
    timeoutMs: TIMEOUT_MS,
  });
  afterTarget(async () => {
    await driver.close();
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { driver, plan };
}

// ----------------------------------------------------------------------------------------------
// The oracle

function assertNoKey(value: unknown, where: string): void {
  const seen = new Set<unknown>();
  const texts: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || v === null || v === undefined || seen.has(v)) return;
    if (typeof v === 'string') return void texts.push(v);
    if (typeof v !== 'object') return;
    seen.add(v);
    if (v instanceof Error) texts.push(v.message, v.stack ?? '', String(v));
    for (const key of Object.getOwnPropertyNames(v)) {
      texts.push(key);
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
  };
  walk(value, 0);
  for (const text of texts)
    check(!text.includes(KEY), `the API key appears in ${where}: …${text.slice(0, 120)}…`);
}

function settleConfirmed(planned: Answer, operation: 'ack' | 'release'): boolean {
  const body = planned.body;
  if (body.kind !== 'envelope' || planned.status < 200 || planned.status >= 300 || body.ok !== true)
    return false;
  if ([204, 304].includes(planned.status)) return false;
  const data = body.data as Record<string, unknown> | null;
  if (!data || typeof data !== 'object') return false;
  return operation === 'ack'
    ? data.acknowledged === true
    : data.requeued === true || data.dead_lettered === true;
}

async function runCase(setup: Setup, c: Case, record: (label: string) => void): Promise<void> {
  setup.plan.current = c.answer;
  const { driver } = setup;
  const call = (): Promise<unknown> => {
    switch (c.operation) {
      case 'receive':
        return driver.receive({ maxMessages: c.maxMessages, leaseSeconds: 30, waitSeconds: 0 });
      case 'ack':
        return driver.ack(['r1']);
      case 'release':
        return driver.release([{ receipt: 'r1', delaySeconds: 0 }]);
      case 'publish':
        return driver.publish([
          { eventId: 'e1', dedupeKey: 'e1', body: '{"a":1}', attributes: {}, delaySeconds: 0 },
        ]);
    }
  };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), SETTLE_WITHIN_MS);
  });
  const settled = call().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const outcome = await Promise.race([settled, hang]).finally(() => clearTimeout(timer));
  check(
    outcome !== 'hang',
    `${c.operation} did not settle within ${SETTLE_WITHIN_MS} ms (${c.answer.body.kind})`,
  );
  check(performance.now() - started < SETTLE_WITHIN_MS, 'settled past the bound');
  if (!outcome.ok) {
    check(
      isTypedError(outcome.error),
      `${c.operation} threw an untyped error: ${String(outcome.error).split(KEY).join('[KEY]').slice(0, 200)}`,
    );
    assertNoKey(outcome.error, `the ${c.operation} error`);
    record(`${c.operation}: ${outcome.error.code}`);
    return;
  }
  assertNoKey(outcome.value, `the ${c.operation} result`);
  if (c.operation === 'receive') {
    const messages = outcome.value as Array<{ receipt: unknown; messageId: unknown; receiveCount: unknown }>;
    check(
      messages.length <= c.maxMessages,
      `receive handed out ${messages.length} of ${c.maxMessages} asked`,
    );
    for (const m of messages) {
      check(typeof m.receipt === 'string' && m.receipt.length > 0, 'a receipt that is not one');
      check(typeof m.messageId === 'string' && m.messageId.length > 0, 'a message id that is not one');
      check(
        Number.isSafeInteger(m.receiveCount) && (m.receiveCount as number) >= 1,
        'a receive count that is not one',
      );
    }
    record(`receive: ${messages.length === 0 ? 'none' : 'some'}`);
    return;
  }
  const [first] = outcome.value as Array<{ ok: boolean; error?: unknown; messageId?: unknown }>;
  check(first !== undefined, `${c.operation} gave no outcome`);
  if (!first.ok) {
    check(isTypedError(first.error), `${c.operation} outcome carries an untyped error`);
    assertNoKey(first.error, `the ${c.operation} outcome`);
    record(`${c.operation}: ${(first.error as { code: string }).code}`);
    return;
  }
  if (c.operation === 'ack' || c.operation === 'release') {
    check(
      settleConfirmed(c.answer, c.operation),
      `${c.operation} resolved ok for an answer that confirmed nothing`,
    );
  } else {
    const body = c.answer.body;
    check(
      body.kind === 'envelope' && c.answer.status >= 200 && c.answer.status < 300,
      'publish ok without a 2xx envelope',
    );
  }
  record(`${c.operation}: ok`);
}

let counts: Record<string, number> = {};

const target: FuzzTarget = {
  name: 'infrai-hostile-server/answers',
  minCases: MIN_CASES,
  counts: () => ({ ...counts }),
  property: () => {
    counts = {};
    let setup: Promise<Setup> | undefined;
    return fc.asyncProperty(caseArb, async (c) => {
      setup ??= startSetup();
      await runCase(await setup, c, (label) => {
        counts[label] = (counts[label] ?? 0) + 1;
      });
    });
  },
};

export const targets: FuzzTarget[] = [target];
