import type { Context, LambdaFunctionURLResult } from 'aws-lambda';
import type { ToolCatalog } from '../../runtime/catalog';
import type { Deadline } from '../../runtime/deadline';
import { echoedField } from '../../runtime/invocation';
import { normalizeError } from '../../runtime/normalize-error';
import { failureResult, type ToolResult } from '../../runtime/result';
import { taskTokenOf } from '../../runtime/task-callback';
import type { AccessProfile, EntryPointBindings } from '../access';
import type { CallbackDispatch, CallbackOutcome } from '../callback';
import type { Dispatch } from '../dispatch';
import { gatewayCallOf, handleGatewayCall } from './agentcore-gateway';
import {
  type BedrockApiResponse,
  type BedrockFunctionResponse,
  handleBedrockAgentEvent,
  isBedrockAgentEvent,
} from './bedrock-agent';

/** What the dispatcher answers a caller that is not the native envelope's. */
export type EntryPointResponse = BedrockFunctionResponse | BedrockApiResponse | LambdaFunctionURLResult;

/** What the adapters share: the catalog, the dispatcher core, the profiles and their bindings. */
export interface EntryPointDeps {
  readonly catalog: ToolCatalog;
  readonly dispatch: Dispatch;
  readonly profiles: Readonly<Record<string, AccessProfile>>;
  readonly bindings: EntryPointBindings;
  /**
   * A plan call that waits for its task token (functions/dispatcher/callback.ts).
   * @default - none: a native envelope is always answered synchronously
   */
  readonly callback?: CallbackDispatch;
}

/**
 * The version an MCP server reports; the bundled dispatcher has no package.json
 * to read it from, and clients use it for display only.
 */
export const MCP_SERVER_VERSION = '1.0.0';

/**
 * Routes one invocation of the dispatcher to the adapter of its caller, by
 * shape, most specific first:
 * 1. an AgentCore Gateway call (the client context carries
 *    `bedrockAgentCoreToolName`; its event is the bare arguments, any shape);
 * 2. a Bedrock Agents action-group event (`messageVersion`, `agent`, `actionGroup`…);
 * 3. a function URL request (payload 2.0): MCP over Streamable HTTP, its module
 *    (and the MCP SDK) loaded on first use;
 * 4. a native envelope with a `taskToken` (a plan call's `.waitForTaskToken`
 *    Task): the callback dispatch, which hands the call to its tool's function
 *    (a `taskToken` that is no token is answered `invalid_args`, nothing run);
 * 5. anything else is the native envelope, checked by the dispatcher core.
 * Every path ends in the same core: whitelist or profile, validation,
 * redaction, bounding, logging.
 */
export async function routeEntryPoint(
  event: unknown,
  context: Context,
  deadline: Deadline,
  deps: EntryPointDeps,
): Promise<ToolResult | EntryPointResponse | CallbackOutcome> {
  const gateway = gatewayCallOf(context);
  if (gateway) return handleGatewayCall(event, gateway, deadline, deps);
  if (isBedrockAgentEvent(event)) return handleBedrockAgentEvent(event, deadline, deps);
  if (isFunctionUrlShaped(event)) {
    // require, not import(): this is a CommonJS module (as bundled), and Jest's CommonJS runtime has no import().
    const { handleMcpFunctionUrl, isFunctionUrlEvent } =
      require('./mcp-function-url') as typeof import('./mcp-function-url');
    if (isFunctionUrlEvent(event))
      return handleMcpFunctionUrl(event, deadline, { ...deps, version: MCP_SERVER_VERSION });
  }
  let taskToken: string | undefined;
  try {
    taskToken = deps.callback ? taskTokenOf(event) : undefined;
  } catch (err) {
    // A malformed token is the envelope's fault: answered as one, never a Lambda error.
    const tool = echoedField(event, 'tool');
    return failureResult(tool, echoedField(event, 'callId'), normalizeError(tool, err), 0);
  }
  if (deps.callback && taskToken) return deps.callback(event, taskToken, deadline);
  return deps.dispatch(event, deadline);
}

/** A cheap look at the event before loading the MCP module (`isFunctionUrlEvent` checks it fully). */
function isFunctionUrlShaped(event: unknown): boolean {
  return (
    event !== null &&
    typeof event === 'object' &&
    (event as { version?: unknown }).version === '2.0' &&
    typeof (event as { requestContext?: unknown }).requestContext === 'object'
  );
}
