import * as z from 'zod/mini';
import { PlatformError } from '../runtime/errors';
import { SNAKE_CASE_NAME, TENANT_ID } from '../runtime/ids';
import '../runtime/zod-locale';

/**
 * Access profiles (docs/entry-points.md): what a caller without a scenario — an
 * MCP client, a Bedrock agent, an AgentCore gateway — may do. A profile names the
 * tenant whose secrets the tools use and the tools it may call. It is bound to the
 * entry point by the operator's configuration (CDK props, `etp mcp` flags), never
 * taken from what the caller sends: a prompt cannot pick another tenant or tool.
 */
export interface AccessProfile {
  /** Tenant id whose secret references the tools resolve. */
  readonly tenant: string;
  /**
   * The tools callers bound to the profile may list and call. File tools are not
   * implied: they work on a run's workspace, which profile calls do not have.
   */
  readonly tools: readonly string[];
}

/** Profile names: snake_case, like scenario and level names (`ops_readonly`). */
const profileName = z.string().check(z.regex(SNAKE_CASE_NAME.pattern, SNAKE_CASE_NAME.accepted));
const toolName = z.string().check(z.regex(SNAKE_CASE_NAME.pattern, SNAKE_CASE_NAME.accepted));

/** Schema of one {@link AccessProfile}. */
export const accessProfileSchema = z.strictObject({
  tenant: z.string().check(z.regex(TENANT_ID.pattern, TENANT_ID.accepted)),
  tools: z.array(toolName).check(z.minLength(1)),
});

/** Schema of the profiles by name. */
export const accessProfilesSchema = z.record(profileName, accessProfileSchema);

/**
 * Bedrock agent ids: 10 letters or digits (Bedrock API reference, "Agent":
 * `agentId`, pattern `[0-9a-zA-Z]{10}`).
 */
export const BEDROCK_AGENT_ID = /^[0-9a-zA-Z]{10}$/;

/**
 * AgentCore Gateway target names: letters, digits, `_` or `-`, 1-100
 * (AgentCore Control API reference, "CreateGatewayTarget": name
 * `([0-9a-zA-Z][-]?){1,100}`, which the CDK relaxes to `_` too).
 */
export const GATEWAY_TARGET_NAME = /^[0-9a-zA-Z][0-9a-zA-Z_-]{0,99}$/;

/**
 * Which profile each entry point uses, bundled with the dispatcher:
 * - `bedrockAgents`: agent id → profile. The id is the `agent.id` Bedrock puts
 *   in the event; only the agents named here are allowed to invoke the dispatcher
 *   (a Lambda permission per agent ARN), and an event from any other agent is refused.
 * - `gatewayTargets`: gateway target name → profile. The name is the prefix of
 *   the tool name the Gateway puts in the client context (`<target>___<tool>`);
 *   only the named gateways' roles may invoke.
 * - `mcpFunctionUrl`: the profile of the dispatcher's function URL (MCP over
 *   Streamable HTTP, IAM auth), when it has one.
 */
export const entryPointBindingsSchema = z.strictObject({
  bedrockAgents: z._default(
    z.record(
      z.string().check(z.regex(BEDROCK_AGENT_ID, '10 letters or digits (a Bedrock agent id)')),
      profileName,
    ),
    {},
  ),
  gatewayTargets: z._default(
    z.record(
      z.string().check(z.regex(GATEWAY_TARGET_NAME, '1-100 letters, digits, _ or - (a gateway target name)')),
      profileName,
    ),
    {},
  ),
  mcpFunctionUrl: z.optional(profileName),
});

/** The dispatcher's entry-point bindings. */
export type EntryPointBindings = z.output<typeof entryPointBindingsSchema>;

/** The scope of a call made through an access profile, handed to the dispatcher core. */
export interface ProfileScope {
  /** The profile's name, for logs and error messages. */
  readonly profile: string;
  readonly tenant: string;
  readonly tools: readonly string[];
}

/** A tool outside the caller's access profile. */
export class ProfileToolNotAllowedError extends PlatformError {
  override readonly name = 'ProfileToolNotAllowedError';
  constructor(tool: string, profile: string, allowed: readonly string[]) {
    super(
      'tool_not_allowed',
      `Tool "${tool}" is not allowed for this caller (access profile "${profile}"). Allowed: ${allowed.join(', ')}`,
      { details: { allowed: [...allowed] } },
    );
  }
}

/**
 * Checks that the profile lists `tool`.
 *
 * @throws ProfileToolNotAllowedError (`tool_not_allowed`) listing what the profile allows.
 */
export function assertProfileAllows(scope: ProfileScope, tool: string): void {
  if (!scope.tools.includes(tool)) throw new ProfileToolNotAllowedError(tool, scope.profile, scope.tools);
}

/** An entry point whose caller is not bound to any profile (a deployment error, not the caller's). */
export class UnboundCallerError extends PlatformError {
  override readonly name = 'UnboundCallerError';
  constructor(what: string) {
    super(
      'access_denied',
      `${what} is not bound to an access profile of this platform: nothing may be called`,
    );
  }
}

/**
 * The scope of profile `name`.
 *
 * @throws UnboundCallerError when `name` is undefined (the caller has no binding)
 *   or names no profile (which the configuration's own check prevents).
 */
export function profileScope(
  profiles: Readonly<Record<string, AccessProfile>>,
  name: string | undefined,
  caller: string,
): ProfileScope {
  const profile = name !== undefined && Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  if (name === undefined || !profile) throw new UnboundCallerError(caller);
  return { profile: name, tenant: profile.tenant, tools: [...profile.tools] };
}

/** The binding of `key` in `bindings`, as an own property only (`constructor` is just an unknown key). */
export function bindingOf(bindings: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(bindings, key) ? bindings[key] : undefined;
}
