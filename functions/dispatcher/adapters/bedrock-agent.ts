/**
 * Bedrock Agents action groups (Bedrock user guide, "Configure Lambda functions
 * to send information that an Amazon Bedrock agent elicits from the user"):
 * the agent's Lambda input event, in its function-details and API-schema forms,
 * becomes a native envelope scoped by the agent's access profile; the ToolResult
 * goes back in the response format Bedrock expects.
 *
 * Powertools' `BedrockAgentFunctionResolver` is not used: it routes to one
 * registered handler per tool (the dispatcher core is the router here), covers
 * the function-details form only, coerces values leniently (`Number("12abc")` is
 * `NaN`, any value but `"true"` is `false`), and reports failures as text
 * without `responseState`; the platform validates strictly and answers a
 * correctable failure with `REPROMPT`.
 */

import { argsShapeError } from '../../runtime/args';
import type { ToolCatalog } from '../../runtime/catalog';
import type { Deadline } from '../../runtime/deadline';
import { normalizeError } from '../../runtime/normalize-error';
import { failureResult, type ToolResult } from '../../runtime/result';
import { type AccessProfile, bindingOf, type EntryPointBindings, profileScope } from '../access';
import type { Dispatch } from '../dispatch';
import { bedrockPlan } from '../formats/formats';
import { decodeByPlan } from '../formats/json-schema';
import { entryCallIdentity, logicalCallKey } from './call-identity';

/** One parameter or request-body property as Bedrock sends it: every value a string. */
export interface BedrockAgentParameter {
  readonly name: string;
  readonly type: string;
  readonly value: string;
}

/** The Lambda input event of an action group (both forms; `function` or `apiPath` tells which). */
export interface BedrockAgentEvent {
  readonly messageVersion: string;
  readonly agent: {
    readonly name: string;
    readonly id: string;
    readonly alias: string;
    readonly version: string;
  };
  readonly inputText: string;
  readonly sessionId: string;
  readonly actionGroup: string;
  /** Function-details form: the function's name. */
  readonly function?: string;
  /** API-schema form: the operation's path and method. */
  readonly apiPath?: string;
  readonly httpMethod?: string;
  readonly parameters?: readonly BedrockAgentParameter[];
  readonly requestBody?: {
    readonly content: Readonly<Record<string, { readonly properties: readonly BedrockAgentParameter[] }>>;
  };
  readonly sessionAttributes?: Readonly<Record<string, string>>;
  readonly promptSessionAttributes?: Readonly<Record<string, string>>;
}

/** `FAILURE` ends the session with a DependencyFailedException; `REPROMPT` hands the body to the model again. */
export type BedrockResponseState = 'FAILURE' | 'REPROMPT';

/** The response of the function-details form. */
export interface BedrockFunctionResponse {
  readonly messageVersion: '1.0';
  readonly response: {
    readonly actionGroup: string;
    readonly function: string;
    readonly functionResponse: {
      readonly responseState?: BedrockResponseState;
      readonly responseBody: { readonly TEXT: { readonly body: string } };
    };
  };
  readonly sessionAttributes?: Readonly<Record<string, string>>;
  readonly promptSessionAttributes?: Readonly<Record<string, string>>;
}

/** The response of the API-schema form. */
export interface BedrockApiResponse {
  readonly messageVersion: '1.0';
  readonly response: {
    readonly actionGroup: string;
    readonly apiPath: string;
    readonly httpMethod: string;
    readonly httpStatusCode: number;
    readonly responseBody: { readonly 'application/json': { readonly body: string } };
  };
  readonly sessionAttributes?: Readonly<Record<string, string>>;
  readonly promptSessionAttributes?: Readonly<Record<string, string>>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isParameterList(value: unknown): value is BedrockAgentParameter[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        isRecord(item) &&
        typeof item.name === 'string' &&
        typeof item.type === 'string' &&
        typeof item.value === 'string',
    )
  );
}

/**
 * Whether the event is a Bedrock Agents action-group event: `messageVersion`,
 * `agent` (with `id`), `sessionId`, `actionGroup`, and `function` or `apiPath`
 * + `httpMethod`, parameters (when present) as name/type/value strings. Nothing
 * else the dispatcher receives has that shape (the native envelope has `tool`).
 */
export function isBedrockAgentEvent(event: unknown): event is BedrockAgentEvent {
  if (!isRecord(event) || !isRecord(event.agent)) return false;
  const agent = event.agent;
  const named =
    typeof event.function === 'string' ||
    (typeof event.apiPath === 'string' && typeof event.httpMethod === 'string');
  const body = event.requestBody;
  const bodyOk =
    body === undefined ||
    (isRecord(body) &&
      isRecord(body.content) &&
      Object.values(body.content).every(
        (media) => isRecord(media) && isParameterList(media.properties ?? []),
      ));
  return (
    typeof event.messageVersion === 'string' &&
    typeof agent.id === 'string' &&
    typeof event.sessionId === 'string' &&
    typeof event.actionGroup === 'string' &&
    named &&
    (event.parameters === undefined || isParameterList(event.parameters)) &&
    bodyOk
  );
}

/** API-schema paths the OpenAPI document declares: `/tools/<tool>`. */
const API_PATH = /^\/tools\/([^/]+)$/;

/** The tool an event calls: the function's name, or the tool in `apiPath`. */
export function bedrockToolName(event: BedrockAgentEvent): string {
  if (event.function !== undefined) return event.function;
  return API_PATH.exec(event.apiPath ?? '')?.[1] ?? event.apiPath ?? '';
}

/** The arguments: parameters and request-body properties, decoded along the tool's Bedrock plan. */
export function bedrockArgs(
  event: BedrockAgentEvent,
  catalog: ToolCatalog,
  tool: string,
): Record<string, unknown> {
  const sent = [
    ...(event.parameters ?? []),
    ...Object.values(event.requestBody?.content ?? {}).flatMap((media) => media.properties ?? []),
  ];
  const plan = catalog.has(tool) ? bedrockPlan(catalog.get(tool)) : {};
  return Object.fromEntries(
    sent.map((parameter) => {
      const argument = Object.hasOwn(plan, parameter.name) ? plan[parameter.name] : undefined;
      return [parameter.name, argument ? decodeByPlan(argument, parameter.value) : parameter.value];
    }),
  );
}

/** What {@link handleBedrockAgentEvent} works with. */
export interface BedrockAgentDeps {
  readonly catalog: ToolCatalog;
  readonly dispatch: Dispatch;
  readonly profiles: Readonly<Record<string, AccessProfile>>;
  readonly bindings: EntryPointBindings;
}

/** Errors the model can correct by calling differently: the body goes back with `REPROMPT`. */
const CORRECTABLE = new Set(['invalid_args', 'unknown_tool', 'tool_not_allowed']);

/**
 * Handles one action-group invocation: the agent's access profile (bound to
 * `agent.id`) gives the tenant and the tools; the call goes through the
 * dispatcher core; the ToolResult JSON is the response body. A correctable
 * failure is answered with `REPROMPT` (the model reads the error and calls
 * again); an agent bound to no profile with `FAILURE` (a deployment error no
 * prompt can fix); any other failure is an ordinary body, `ok: false`.
 * The session's attributes are handed back as received.
 *
 * Ids: the run id's session part is the agent id and session id, its call part
 * the function (or path), the arguments, the user's input text and the
 * 10-minute window (`logicalCallKey`), so Bedrock re-sending an event is the same
 * call to a write tool (answered with the first outcome), and the same text in a
 * later turn is a new call.
 */
export async function handleBedrockAgentEvent(
  event: BedrockAgentEvent,
  deadline: Deadline,
  deps: BedrockAgentDeps,
): Promise<BedrockFunctionResponse | BedrockApiResponse> {
  const tool = bedrockToolName(event);
  const args = bedrockArgs(event, deps.catalog, tool);
  // Bounded before any recursive work (the call key walks the args): a deep parameter is invalid_args.
  const refused = argsShapeError(tool, args);
  const { runId, callId } = entryCallIdentity(
    'bedrock',
    `${event.agent.id}\n${event.sessionId}`,
    refused
      ? 'refused'
      : logicalCallKey(event.function ?? `${event.httpMethod} ${event.apiPath}`, args, event.inputText),
  );
  let result: ToolResult;
  let unbound = false;
  if (refused)
    return bedrockResponse(event, failureResult(tool, callId, normalizeError(tool, refused), 0), false);
  try {
    const scope = profileScope(
      deps.profiles,
      bindingOf(deps.bindings.bedrockAgents, event.agent.id),
      `Bedrock agent ${event.agent.id}`,
    );
    result = await deps.dispatch({ tenant: scope.tenant, tool, args, runId, callId }, deadline, scope);
  } catch (err) {
    unbound = true;
    result = failureResult(tool, callId, normalizeError(tool, err), 0);
  }
  return bedrockResponse(event, result, unbound);
}

function bedrockResponse(
  event: BedrockAgentEvent,
  result: ToolResult,
  unbound: boolean,
): BedrockFunctionResponse | BedrockApiResponse {
  const body = JSON.stringify(result);
  const attributes = {
    ...(event.sessionAttributes ? { sessionAttributes: event.sessionAttributes } : {}),
    ...(event.promptSessionAttributes ? { promptSessionAttributes: event.promptSessionAttributes } : {}),
  };
  const code = result.ok ? undefined : result.error.code;
  if (event.function !== undefined) {
    const responseState: BedrockResponseState | undefined = unbound
      ? 'FAILURE'
      : code && CORRECTABLE.has(code)
        ? 'REPROMPT'
        : undefined;
    return {
      messageVersion: '1.0',
      response: {
        actionGroup: event.actionGroup,
        function: event.function,
        functionResponse: { ...(responseState ? { responseState } : {}), responseBody: { TEXT: { body } } },
      },
      ...attributes,
    };
  }
  return {
    messageVersion: '1.0',
    response: {
      actionGroup: event.actionGroup,
      apiPath: event.apiPath ?? '',
      httpMethod: event.httpMethod ?? '',
      httpStatusCode: httpStatusOf(code),
      responseBody: { 'application/json': { body } },
    },
    ...attributes,
  };
}

/**
 * The HTTP status of an API-schema response: 200 for a result, success or a
 * tool's failure alike (the body tells them apart); 400 for arguments or a tool
 * name the model can correct; 403 for a tool outside the profile or an unbound agent.
 */
function httpStatusOf(code: string | undefined): number {
  if (code === 'invalid_args' || code === 'unknown_tool') return 400;
  if (code === 'tool_not_allowed' || code === 'access_denied') return 403;
  return 200;
}
