import type { Context } from 'aws-lambda';
import type { ToolContextServices } from './context';
import { type Deadline, deadlineBefore, deadlineIn } from './deadline';
import { runTool } from './harness';
import { assertToolInvocation, echoedField, invocationOf } from './invocation';
import { logger } from './logger';
import { normalizeError } from './normalize-error';
import { failureResult, type ToolResult } from './result';
import { toolResultMaxBytes } from './result-limits';
import { SecretResolver } from './secrets/resolver';
import {
  IDEMPOTENCY_SESSION,
  RUN_DATA_SESSION,
  SECRET_SESSIONS_ENV,
  VendedSessions,
  vendedCredentialsOf,
} from './secrets/vended';
import type { Tool } from './spec';
import { taskTokenOf } from './task-callback';
import {
  type CallbackServices,
  callbackReserveMs,
  callbackServicesFromEnvironment,
  finishCallback,
} from './tool-callback';
import { toolHostServices } from './tool-host';

/**
 * Container-level services of a tool function, built once from its environment.
 * The DynamoDB client of the reference table is loaded here, at the first call,
 * not when the module loads: the init phase then holds only the tool's own
 * service clients (cold start, issue 6).
 */
function servicesFromEnvironment(toolName: string, vended: VendedSessions): ToolContextServices {
  const table = process.env.SECRET_REFS_TABLE;
  if (!table) throw new Error(`SECRET_REFS_TABLE is not set for the ${toolName} function`);
  if (process.env[SECRET_SESSIONS_ENV] === 'vended') {
    // Deployed: every row and secret is read through the reader session the dispatcher
    // vended for the call's tenant (secrets/vended.ts); this function assumes no role to read.
    const scope = require('./secrets/tenant-scope') as typeof import('./secrets/tenant-scope');
    return {
      ...toolHostServices(scope.deployedSecretResolver(table, vended)),
      callSecretStrings: () => vended.secretStrings(),
      // A workspace tool's files, through the run-data session vended for the call (no right of its own).
      runData: (tenant) => vended.credentials(tenant, RUN_DATA_SESSION),
    };
  }
  const { DynamoDbSecretReferenceStore } =
    require('./secrets/dynamodb-store') as typeof import('./secrets/dynamodb-store');
  // A function's environment is no place for secrets: no conventional-variable fallback here.
  return toolHostServices(
    new SecretResolver(new DynamoDbSecretReferenceStore(table), { conventionFallback: false }),
  );
}

/**
 * How a write tool's function runs a call: once per tenant + runId + callId,
 * recorded in `IDEMPOTENCY_TABLE` (functions/runtime/idempotency.ts). Loaded only
 * for write tools, so read tools' cold starts do not pay for Powertools Idempotency.
 *
 * @throws Error when the variable is missing: a write tool never runs without its record.
 */
function runOnceFromEnvironment(tool: Tool, vended: VendedSessions): typeof runTool {
  const table = process.env.IDEMPOTENCY_TABLE;
  if (!table) throw new Error(`IDEMPOTENCY_TABLE is not set for the ${tool.name} function, a write tool`);
  const { runToolOnce } = require('./idempotency') as typeof import('./idempotency');
  const { dynamoDbIdempotency } = require('./idempotency-layers') as typeof import('./idempotency-layers');
  if (process.env[SECRET_SESSIONS_ENV] !== 'vended') {
    const layers = dynamoDbIdempotency(table);
    return (t, invocation, deadline, services, maxBytes) =>
      runToolOnce(t, invocation, deadline, services, layers, maxBytes);
  }
  // Deployed: the records are reached with the call's vended records session only (IAM
  // confines it to the tenant's items), one client per tenant so no session serves another.
  const { DynamoDBClient } = require('@aws-sdk/client-dynamodb') as typeof import('@aws-sdk/client-dynamodb');
  const { awsRequestHandler } = require('./aws/http-timeouts') as typeof import('./aws/http-timeouts');
  const { boundedCache } = require('./bounded-cache') as typeof import('./bounded-cache');
  const clients = boundedCache<string, InstanceType<typeof DynamoDBClient>>({
    max: 256,
    ttlMs: 24 * 3_600_000,
    dispose: (client) => client.destroy(),
  });
  const clientOf = (tenant: string) => {
    let client = clients.get(tenant);
    if (!client) {
      client = new DynamoDBClient({
        credentials: vended.credentials(tenant, IDEMPOTENCY_SESSION),
        requestHandler: awsRequestHandler(),
      });
      clients.set(tenant, client);
    }
    return client;
  };
  return (t, invocation, deadline, services, maxBytes) =>
    runToolOnce(
      t,
      invocation,
      deadline,
      services,
      dynamoDbIdempotency(table, clientOf(invocation.tenant)),
      maxBytes,
    );
}

/** Options of {@link createToolHandler}. */
export interface ToolHandlerOptions {
  /**
   * What a callback call (its invocation carries a task token) is finished with:
   * the post-call work and the task responder. Built on the first such call.
   * @default callbackServicesFromEnvironment (functions/runtime/tool-callback.ts)
   */
  readonly callbacks?: (vended: VendedSessions) => CallbackServices;
}

/**
 * The Lambda handler of a tool's own function. Its services (the secret resolver
 * on `SECRET_REFS_TABLE`, reading with the sessions each call was vended when
 * `SECRET_SESSIONS` is `vended`; for `write` tools the exactly-once record on
 * `IDEMPOTENCY_TABLE`) are built once per container, on the first call rather
 * than at import so the CLI and tests can import the tool module; a missing
 * variable fails that call loudly (a Lambda error the dispatcher reports as
 * `internal_error`). Each call is narrowed, run by the harness and answered with
 * a ToolResult. A plan call's invocation carries its Step Functions task token
 * (`taskToken`): the function then finishes the call itself — the post-call work
 * (redaction, claim-check or bound) and SendTaskSuccess with that result, an
 * `ok: false` one too (functions/runtime/tool-callback.ts) — and what it returns
 * is read by no one (an asynchronous invocation).
 *
 * @example
 * // functions/tools/aws/ec2-inventory.ts
 * export const handler = createToolHandler(ec2InventoryTool);
 */
export function createToolHandler(
  tool: Tool,
  options: ToolHandlerOptions = {},
): (event: unknown, context: Context) => Promise<ToolResult> {
  let services: ToolContextServices | undefined;
  let run: typeof runTool | undefined;
  let callbacks: CallbackServices | undefined;
  const vended = new VendedSessions();
  return async (event, context) => {
    services ??= servicesFromEnvironment(tool.name, vended);
    run ??= tool.sideEffects === 'write' ? runOnceFromEnvironment(tool, vended) : runTool;
    logger.addContext(context);
    let deadline: Deadline | undefined;
    let callback: ReturnType<typeof callbackOf>;
    try {
      // Held for this call only; invocationOf drops them from what the harness sees.
      vended.accept(vendedCredentialsOf(event));
      callback = callbackOf(event);
      assertToolInvocation(event);
      // Bounded at TOOL_RESULT_MAX_BYTES: the dispatcher (or, with a token, the post-call
      // work below) claim-checks what does not fit the state.
      deadline = deadlineIn(context.getRemainingTimeInMillis());
      const invocation = invocationOf(event);
      if (!callback) return await run(tool, invocation, deadline, services, toolResultMaxBytes());
      // A callback call keeps time for its post-call work and its answer (tool-callback.ts).
      const toolDeadline = deadlineBefore(deadline, callbackReserveMs(deadline.remainingMs()));
      const result = await run(tool, invocation, toolDeadline, services, toolResultMaxBytes());
      toolDeadline.dispose?.();
      callbacks ??= (options.callbacks ?? callbackServicesFromEnvironment)(vended);
      return await finishCallback(callbacks, tool, invocation, callback.token, result, deadline);
    } catch (err) {
      const failure = failureResult(
        tool.name,
        echoedField(event, 'callId'),
        normalizeError(tool.name, err),
        0,
      );
      if (!callback) return failure;
      // Nothing ran (a malformed invocation): the call still ends now, with its error code.
      callbacks ??= (options.callbacks ?? callbackServicesFromEnvironment)(vended);
      return finishCallback(
        callbacks,
        tool,
        undefined,
        callback.token,
        failure,
        deadline ?? deadlineIn(5_000),
      );
    } finally {
      vended.clear();
      deadline?.dispose?.();
    }
  };
}

/** The task token of a callback invocation; a malformed one fails the call like a malformed envelope. */
function callbackOf(event: unknown): { readonly token: string } | undefined {
  const token = taskTokenOf(event);
  return token === undefined ? undefined : { token };
}
