import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '@queueport/core';
import type { DiscoverySnapshot } from '../discovery/discovery-format';
import { authenticate } from './auth';
import type { CapabilityHandler } from './capability-call';
import type { CreditAccount } from './credit';
import { discoveryDetail, discoveryIndex, pricePerRequest } from './discovery-serving';
import { type Answer, errorAnswer, type ResponseMetadata, successAnswer, wireOf } from './envelope';
import { type ActionFault, DISCOVERY_FAULT_SCOPE, type FaultPlan, injectedError } from './faults';
import type { RateLimiter } from './rate-limiter';
import { type ReceivedBody, receiveBody } from './request-body';
import type { RequestLog, SimulatorRequest } from './request-log';
import { paramsOf } from './request-params';
import { checkRequest } from './request-validation';
import type { Route, Router } from './routing';
import { SimulatorError } from './simulator-error';
import { uuidV7 } from './uuid-v7';

export interface Pipeline {
  snapshot: DiscoverySnapshot;
  clock: Clock;
  router: Router;
  apiKeys: ReadonlySet<string>;
  rateLimiter: RateLimiter;
  credit: CreditAccount;
  faults: FaultPlan;
  handlers: Readonly<Record<string, CapabilityHandler>>;
  log: RequestLog;
  /** Real time, for a slow fault; false when the simulator closed meanwhile. */
  wait(ms: number): Promise<boolean>;
}

interface Processed {
  answer: Answer;
  params?: Readonly<Record<string, unknown>>;
  replayed?: boolean;
}

/**
 * One request, start to end. Faults come first (a front end failing knows nothing of keys);
 * then discovery, which is public; then, for a capability: the API key, the rate limit, credit,
 * the body's form, the schema and the capability itself. Everything after the body has arrived
 * runs without an await, so requests apply one at a time, as a single-threaded service would.
 */
export async function serveRequest(
  pipeline: Pipeline,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  const route = pipeline.router.match(method, url.pathname);
  const scope =
    route === undefined ? undefined : route.kind === 'capability' ? route.capability : DISCOVERY_FAULT_SCOPE;
  const faults = scope === undefined ? { delayMs: 0, action: undefined } : pipeline.faults.take(scope);
  const body = await receiveBody(req);
  if (faults.delayMs > 0 && !(await pipeline.wait(faults.delayMs))) {
    req.socket.destroy();
    return;
  }
  const now = pipeline.clock.now();
  const requestId = uuidV7(now);
  const seen: Omit<SimulatorRequest, 'status'> = {
    capability: scope,
    method,
    path: url.pathname,
    requestId,
    at: now,
  };
  if (faults.action?.kind === 'drop-before') {
    pipeline.log.add({ ...seen, status: 0, dropped: 'before' });
    req.socket.destroy();
    return;
  }
  const processed = answerRequest(pipeline, {
    route,
    url,
    body,
    req,
    now,
    requestId,
    started,
    fault: faults.action,
  });
  const dropAfter = faults.action?.kind === 'drop-after';
  pipeline.log.add({
    ...seen,
    status: processed.answer.status,
    ...keysOf(processed.params),
    ...(processed.replayed ? { replayed: true } : {}),
    ...(dropAfter ? { dropped: 'after' as const } : {}),
  });
  if (dropAfter) {
    req.socket.destroy();
    return;
  }
  const wire = wireOf(processed.answer);
  res.writeHead(wire.status, wire.headers);
  res.end(wire.body);
}

interface Arrival {
  route: Route | undefined;
  url: URL;
  body: ReceivedBody;
  req: IncomingMessage;
  now: number;
  requestId: string;
  started: number;
  fault: ActionFault | undefined;
}

function answerRequest(pipeline: Pipeline, arrival: Arrival): Processed {
  const { route, now } = arrival;
  const capability = route?.kind === 'capability' ? route.capability : undefined;
  const metadata = (billed: boolean, cacheHit: boolean): ResponseMetadata => ({
    cost_usd: billed && capability ? pricePerRequest(pipeline.snapshot, capability) : 0,
    latency_ms: Math.round(performance.now() - arrival.started),
    vendor: 'infrai',
    cache_hit: cacheHit,
    request_id: arrival.requestId,
  });
  let params: Record<string, unknown> | undefined;
  try {
    if (!route) {
      throw new SimulatorError('NOT_FOUND', `no route for ${arrival.req.method} ${arrival.url.pathname}`, {
        hint: 'GET /v1/discovery lists the routes',
      });
    }
    if (arrival.fault?.kind === 'status') {
      throw injectedError(pipeline.snapshot, capability ?? DISCOVERY_FAULT_SCOPE, arrival.fault);
    }
    if (route.kind === 'discovery-index') {
      return { answer: successAnswer(discoveryIndex(pipeline.snapshot, now), metadata(false, false)) };
    }
    if (route.kind === 'discovery-detail') {
      return { answer: successAnswer(discoveryDetail(pipeline.snapshot, route.id), metadata(false, false)) };
    }
    const apiKey = authenticate(arrival.req.headers.authorization, pipeline.apiKeys);
    pipeline.rateLimiter.admit(apiKey, now);
    pipeline.credit.ensure();
    if (!route.contract.available) {
      throw new SimulatorError('SERVICE_UNAVAILABLE', `${route.capability} is not available`, {
        hint: 'discovery lists it as available: false',
      });
    }
    params = paramsOf(
      route.contract,
      route.pathParams,
      arrival.url.searchParams,
      arrival.body,
      arrival.req.headers['content-type'],
    );
    checkRequest(route.capability, route.contract.request, params);
    const handler = Object.hasOwn(pipeline.handlers, route.capability)
      ? pipeline.handlers[route.capability]
      : undefined;
    if (!handler) {
      throw new SimulatorError('NOT_FOUND', `the simulator does not implement ${route.capability}`);
    }
    const result = handler({ capability: route.capability, params, apiKey, now });
    if (!result.replayed) pipeline.credit.charge();
    return {
      answer: successAnswer(result.data, metadata(!result.replayed, result.replayed)),
      params,
      replayed: result.replayed,
    };
  } catch (error) {
    const refusal =
      error instanceof SimulatorError
        ? error
        : new SimulatorError(
            'INTERNAL_ERROR',
            `the simulator failed: ${error instanceof Error ? error.message : String(error)}`,
          );
    return {
      answer: errorAnswer(pipeline.snapshot, capability, refusal, metadata(false, false)),
      ...(params ? { params } : {}),
    };
  }
}

function keysOf(params: Readonly<Record<string, unknown>> | undefined): Partial<SimulatorRequest> {
  if (!params) return {};
  const key = params.idempotency_key;
  const messages = params.messages;
  return {
    ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
    ...(Array.isArray(messages)
      ? {
          idempotencyKeys: messages.map((m: { idempotency_key?: unknown } | null) =>
            typeof m?.idempotency_key === 'string' ? m.idempotency_key : undefined,
          ),
        }
      : {}),
  };
}
