/**
 * AgentCore Gateway Lambda targets (AgentCore developer guide, "AWS Lambda
 * function targets", Lambda function input format): the event is the tool's
 * arguments, the tool name arrives in the Lambda client context as
 * `bedrockAgentCoreToolName` = `<target name>___<tool name>` ("Understand how
 * AgentCore Gateway tools are named"), beside `bedrockAgentCoreGatewayId`,
 * `bedrockAgentCoreTargetId`, `bedrockAgentCoreAwsRequestId`,
 * `bedrockAgentCoreMcpMessageId` and `bedrockAgentCoreMessageVersion`.
 */
import type { Context } from 'aws-lambda';
import { argsShapeError } from '../../runtime/args';
import type { ToolCatalog } from '../../runtime/catalog';
import type { Deadline } from '../../runtime/deadline';
import { normalizeError } from '../../runtime/normalize-error';
import { failureResult, type ToolResult } from '../../runtime/result';
import { type AccessProfile, type EntryPointBindings, profileScope } from '../access';
import type { Dispatch } from '../dispatch';
import { gatewayPlan } from '../formats/formats';
import { decodeByPlan } from '../formats/json-schema';
import { entryCallIdentity, logicalCallKey } from './call-identity';

/** The separator between target and tool in a Gateway tool name. */
export const GATEWAY_TOOL_SEPARATOR = '___';

/** What a Gateway call's client context carries. */
export interface GatewayCall {
  /** `bedrockAgentCoreToolName` as sent: `<target>___<tool>`. */
  readonly qualifiedToolName: string;
  readonly gatewayId?: string;
  readonly targetId?: string;
  /** The Gateway's id of the MCP request: one per `tools/call`. */
  readonly awsRequestId?: string;
  readonly mcpMessageId?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The Gateway call in a Lambda context, or undefined when the invocation is not
 * one. The Node.js runtime hands the client context's JSON over as parsed, so
 * the Gateway's keys are under `custom` (the JSON's own key; `@types/aws-lambda`
 * spells it `Custom`, which is read too).
 */
export function gatewayCallOf(context: Pick<Context, 'clientContext'> | undefined): GatewayCall | undefined {
  const clientContext: unknown = context?.clientContext;
  if (!isRecord(clientContext)) return undefined;
  const custom = isRecord(clientContext.custom) ? clientContext.custom : clientContext.Custom;
  if (!isRecord(custom) || typeof custom.bedrockAgentCoreToolName !== 'string') return undefined;
  const text = (key: string) => (typeof custom[key] === 'string' ? (custom[key] as string) : undefined);
  return {
    qualifiedToolName: custom.bedrockAgentCoreToolName,
    gatewayId: text('bedrockAgentCoreGatewayId'),
    targetId: text('bedrockAgentCoreTargetId'),
    awsRequestId: text('bedrockAgentCoreAwsRequestId'),
    mcpMessageId: text('bedrockAgentCoreMcpMessageId'),
  };
}

/**
 * The bound target a qualified tool name starts with, and the tool after its
 * `___`: matched against the configured target names (longest first), not cut at
 * the first `___`, so a target name with underscores cannot shift the split.
 */
export function splitGatewayToolName(
  qualified: string,
  targets: readonly string[],
): { readonly target: string; readonly tool: string } | undefined {
  const target = [...targets]
    .sort((a, b) => b.length - a.length)
    .find((name) => qualified.startsWith(`${name}${GATEWAY_TOOL_SEPARATOR}`));
  return target === undefined
    ? undefined
    : { target, tool: qualified.slice(target.length + GATEWAY_TOOL_SEPARATOR.length) };
}

/** What {@link handleGatewayCall} works with. */
export interface GatewayDeps {
  readonly catalog: ToolCatalog;
  readonly dispatch: Dispatch;
  readonly profiles: Readonly<Record<string, AccessProfile>>;
  readonly bindings: EntryPointBindings;
}

/**
 * Handles one Gateway tool call: the target's access profile gives the tenant
 * and the tools, the arguments are decoded along the tool's Gateway plan (its
 * JSON-encoded parts parsed), and the ToolResult itself is the answer — the
 * Gateway hands a Lambda target's JSON to the MCP client as the tool's result.
 * Failures are `ok: false` results too, never a thrown error: a Lambda function
 * error reaches the client as a sanitized message without the normalized error.
 *
 * Ids: the run id's session part is the gateway id, its call part the Gateway's
 * request id (one per `tools/call`); without one, the logical call (tool,
 * arguments, 10-minute window: `logicalCallKey`), so a retry is the same call.
 */
export async function handleGatewayCall(
  args: unknown,
  call: GatewayCall,
  deadline: Deadline,
  deps: GatewayDeps,
): Promise<ToolResult> {
  const split = splitGatewayToolName(call.qualifiedToolName, Object.keys(deps.bindings.gatewayTargets));
  const tool = split?.tool ?? call.qualifiedToolName;
  // The Gateway's request id when it sends one; else the logical call: the Lambda request id
  // is new on every retry, so it would make each retry a new call.
  // Bounded before any recursive work (decoding, the call key): a deep argument is invalid_args.
  const refused = argsShapeError(tool, args);
  const { runId, callId } = entryCallIdentity(
    'gateway',
    call.gatewayId ?? split?.target ?? 'gateway',
    call.awsRequestId ?? (refused ? 'refused' : logicalCallKey(tool, args)),
  );
  if (refused) return failureResult(tool, callId, normalizeError(tool, refused), 0);
  try {
    const scope = profileScope(
      deps.profiles,
      split ? deps.bindings.gatewayTargets[split.target] : undefined,
      `Gateway tool "${call.qualifiedToolName}" (no bound target name prefixes it)`,
    );
    const decoded = deps.catalog.has(tool) ? decodeByPlan(gatewayPlan(deps.catalog.get(tool)), args) : args;
    return await deps.dispatch({ tenant: scope.tenant, tool, args: decoded, runId, callId }, deadline, scope);
  } catch (err) {
    return failureResult(tool, callId, normalizeError(tool, err), 0);
  }
}
