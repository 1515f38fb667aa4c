/**
 * What a REST tool's request case is made of (exported as `requestCases` by its
 * connector's test, `test/integration/<connector>/<connector>-tools.test.ts`,
 * beside the tool's other tests): one typical call of the tool against the
 * loopback fake of its API, with the most HTTP requests the tool's documented
 * page budget allows that call. `bench/rest-request-cases.ts` collects every REST
 * tool's cases from the catalog; `runRequestCase` counts the requests one call
 * sends, from the `etp:rest:request` diagnostics channel every REST session
 * publishes each request on (functions/runtime/http/scopes.ts).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { clearQuotaStates } from '../../functions/runtime/http/connector';
import { sharedRateLimiter } from '../../functions/runtime/http/rate-limit';
import { REST_REQUEST_CHANNEL, type RestRequestMessage } from '../../functions/runtime/http/scopes';
import { InMemoryIdempotencyStore } from '../../functions/runtime/idempotency-layers';
import type { ToolResult } from '../../functions/runtime/result';
import type { Tool } from '../../functions/runtime/spec';
import { callRestTool, restSecrets } from './rest-tool';

/** The fake a case runs against, started: the tenant's secrets for it, and how to stop it. */
export interface RequestCaseWorld {
  /** Secret name → value (objects as JSON), as the tenant's references hold them. */
  readonly secrets: Readonly<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** One REST tool's typical call. */
export interface RequestCase {
  readonly tool: string;
  /** What the call reads or writes, in a few words (`one repository, 12 merged pull requests in 6 hours`). */
  readonly call: string;
  readonly args: Record<string, unknown>;
  /** Most HTTP requests the call may send: the tool's documented page budget and fixed requests. */
  readonly ceiling: number;
  /** Where {@link ceiling} is documented (the spec's description, the connector's docs page), and how it adds up. */
  readonly ceilingSource: string;
  /** Starts the fake holding the case's world (and points the connector's base URL variable at it). */
  start(): Promise<RequestCaseWorld>;
}

/** What one case's call did. */
export interface RequestCaseRun {
  readonly result: ToolResult;
  /** HTTP requests the call sent (each one published on `etp:rest:request`). */
  readonly requests: number;
  /** `METHOD path` → requests, in the order first sent. */
  readonly byEndpoint: Readonly<Record<string, number>>;
}

/**
 * Runs one case: starts its fake, calls the tool once with fresh rate-limit
 * buckets and quota states (a write tool through an in-memory exactly-once
 * store), counts the requests it published, stops the fake.
 *
 * @throws Error from `callRestTool` when a request is not covered by the tool's
 *   token scopes (the call's own scope check).
 */
export async function runRequestCase(testCase: RequestCase, tool: Tool): Promise<RequestCaseRun> {
  sharedRateLimiter.clear();
  clearQuotaStates();
  const world = await testCase.start();
  const sent: RestRequestMessage[] = [];
  const record = (message: unknown) => {
    if ((message as RestRequestMessage).tool === tool.name) sent.push(message as RestRequestMessage);
  };
  subscribe(REST_REQUEST_CHANNEL.name, record);
  try {
    const result = await callRestTool(
      tool,
      testCase.args,
      restSecrets(world.secrets),
      tool.sideEffects === 'write' ? { idempotency: new InMemoryIdempotencyStore().layer } : {},
    );
    const byEndpoint: Record<string, number> = {};
    for (const request of sent) {
      const endpoint = `${request.method} ${request.path}`;
      byEndpoint[endpoint] = (byEndpoint[endpoint] ?? 0) + 1;
    }
    return { result, requests: sent.length, byEndpoint };
  } finally {
    unsubscribe(REST_REQUEST_CHANNEL.name, record);
    await world.stop();
  }
}
