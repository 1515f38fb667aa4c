import * as z from 'zod/mini';
import { ORG_SECRET_NAME, SNAKE_CASE_NAME } from '../runtime/ids';
import '../runtime/zod-locale';
import { accessProfilesSchema, entryPointBindingsSchema } from './access';

/**
 * The dispatcher's configuration, computed by the CDK at synth time from the
 * scenario files and the stack, and bundled into the dispatcher's code (esbuild
 * `define` of {@link DISPATCHER_CONFIG_GLOBAL}) rather than passed in environment
 * variables: Lambda caps a function's variables at 4 KB in all (Lambda developer
 * guide, "Lambda quotas"), which the whitelists of a few dozen scenarios outgrow.
 */
declare const ETP_DISPATCHER_CONFIG: unknown;

/** The global the CDK defines at bundle time with the JSON of a {@link DispatcherConfig}. */
export const DISPATCHER_CONFIG_GLOBAL = 'ETP_DISPATCHER_CONFIG';

const name = z.string().check(z.regex(SNAKE_CASE_NAME.pattern, SNAKE_CASE_NAME.accepted));

/**
 * Lambda function names: 1-64 letters, digits, `-` or `_` (Lambda API reference,
 * "CreateFunction", `FunctionName`).
 */
export const LAMBDA_FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const dispatcherConfigSchema = z.strictObject({
  /** Each scenario's levels and their `intra_tools`: `{ scenario: { level: [tool…] } }`. */
  scenarios: z.record(name, z.record(name, z.array(name))),
  /** Arguments each level pins: `{ scenario: { level: { tool: [argument…] } } }` (functions/dispatcher/pins.ts). */
  pins: z._default(z.record(name, z.record(name, z.record(name, z.array(z.string())))), {}),
  /**
   * The per-account levels (`for_each_account`) and the organization secret of each:
   * `{ scenario: { level: 'aws_org_default' } }` (functions/dispatcher/levels.ts, `accountLevelSecret`).
   */
  accountLevels: z._default(
    z.record(
      name,
      z.record(name, z.string().check(z.regex(ORG_SECRET_NAME.pattern, ORG_SECRET_NAME.accepted))),
    ),
    {},
  ),
  /** Tool functions are named `<prefix><tool name>` (see {@link toolFunctionName}). */
  toolFunctionNamePrefix: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,40}$/, '1-40 letters, digits, - or _')),
  /** Access profiles by name (functions/dispatcher/access.ts): tenant + tools, for callers without a scenario. */
  accessProfiles: z._default(accessProfilesSchema, {}),
  /** Which profile each entry point (Bedrock agent, gateway target, function URL) uses. */
  entryPoints: z._default(entryPointBindingsSchema, { bedrockAgents: {}, gatewayTargets: {} }),
});

/** The dispatcher's deployment configuration. */
export type DispatcherConfig = z.output<typeof dispatcherConfigSchema>;

/** What {@link parseDispatcherConfig} accepts: `pins`, `accountLevels`, `accessProfiles` and `entryPoints` may be left out. */
export type DispatcherConfigInput = z.input<typeof dispatcherConfigSchema>;

/**
 * Checks a configuration.
 *
 * @throws Error listing each problem with its path, so a broken build fails the init
 *   (and the CDK, which checks what it bundles, fails the synth) with what to fix.
 */
export function parseDispatcherConfig(raw: unknown): DispatcherConfig {
  const parsed = dispatcherConfigSchema.safeParse(raw);
  const problems = parsed.success
    ? unknownProfileBindings(parsed.data)
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  if (parsed.success && problems.length === 0) return parsed.data;
  throw new Error(`Invalid dispatcher configuration: ${problems.join('; ')}`);
}

/** Entry-point bindings naming a profile the configuration does not define. */
function unknownProfileBindings(config: DispatcherConfig): string[] {
  const defined = Object.keys(config.accessProfiles);
  const { bedrockAgents, gatewayTargets, mcpFunctionUrl } = config.entryPoints;
  const bindings: [string, string][] = [
    ...Object.entries(bedrockAgents).map(([id, name]): [string, string] => [
      `entryPoints.bedrockAgents.${id}`,
      name,
    ]),
    ...Object.entries(gatewayTargets).map(([id, name]): [string, string] => [
      `entryPoints.gatewayTargets.${id}`,
      name,
    ]),
    ...(mcpFunctionUrl !== undefined
      ? [['entryPoints.mcpFunctionUrl', mcpFunctionUrl] as [string, string]]
      : []),
  ];
  return bindings
    .filter(([, name]) => !Object.hasOwn(config.accessProfiles, name))
    .map(
      ([where, name]) =>
        `${where}: unknown access profile "${name}" (defined: ${defined.join(', ') || 'none'})`,
    );
}

/**
 * The configuration bundled into this dispatcher.
 *
 * @throws Error when the code was bundled without one, or it is invalid.
 */
export function bundledDispatcherConfig(): DispatcherConfig {
  if (typeof ETP_DISPATCHER_CONFIG === 'undefined') {
    throw new Error(`The dispatcher was bundled without its configuration (${DISPATCHER_CONFIG_GLOBAL})`);
  }
  return parseDispatcherConfig(ETP_DISPATCHER_CONFIG);
}

/**
 * The Lambda function name of a tool: `<prefix><tool>` (`ExternalToolsPlatform-aws_ec2_inventory`).
 * The CDK names each tool's function so, and the dispatcher invokes by it.
 *
 * @throws Error when the name is not a valid Lambda function name (over 64 characters).
 */
export function toolFunctionName(prefix: string, tool: string): string {
  const functionName = `${prefix}${tool}`;
  if (!LAMBDA_FUNCTION_NAME.test(functionName)) {
    throw new Error(
      `The function name "${functionName}" of tool ${tool} is not a Lambda function name ` +
        '(1-64 letters, digits, - or _): choose a shorter function name prefix',
    );
  }
  return functionName;
}
