/**
 * The platform's deployment configuration read by the CDK app (`bin/app.ts`),
 * so that entry points and schedules need no edit of TypeScript
 * (docs/deploying.md, "Configuring entry points and schedules"). Two sources,
 * merged key by key, the file winning:
 *
 * - CDK context `platform`: an object in `cdk.json` (`"context": {"platform": {…}}`),
 *   or a JSON string given on the command line (`-c platform='{"schedules":[…]}'`);
 * - CDK context `platformConfig`: the path of a JSON file holding the same object
 *   (`-c platformConfig=etp.config.json`), relative to the directory `cdk` runs in.
 *
 * Every key is checked here, before any construct is built: an unknown key or a
 * malformed value fails `cdk synth` with its path and what is accepted. Names
 * (profiles, scenarios, tools, tenants) are then checked by the constructs.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { EventPattern } from 'aws-cdk-lib/aws-events';
import { ArnPrincipal } from 'aws-cdk-lib/aws-iam';
import { z } from 'zod/mini';
import { accessProfilesSchema } from '../functions/dispatcher/access';
import { jsonSyntaxMessage } from '../functions/runtime/json-syntax';
import { violationsOf } from '../functions/runtime/schema-violations';
import type { ExternalToolsPlatformProps } from '../lib/external-tools-platform';
import type { OrganizationAccessStackProps } from '../lib/organization-access-stack';
import { type SnapshotAthenaProps, snapshotAthenaEnvironment } from '../lib/snapshot-athena-settings';

/** The context key holding the configuration object (or its JSON). */
export const PLATFORM_CONTEXT = 'platform';
/** The context key naming a JSON file holding the configuration object. */
export const PLATFORM_CONFIG_FILE_CONTEXT = 'platformConfig';

const iamPrincipalArn = z
  .string()
  .check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:(root|role\/.+|user\/.+)$/, 'an IAM role, user or root ARN'));

/** The JSON form of the entry points and schedules (the props of the same names, with ARNs for principals). */
const platformConfigSchema = z.strictObject({
  accessProfiles: z.optional(accessProfilesSchema),
  bedrockAgents: z.optional(z.array(z.strictObject({ agentArn: z.string(), profile: z.string() }))),
  agentCoreGateway: z.optional(z.strictObject({ profile: z.string(), targetName: z.optional(z.string()) })),
  mcpFunctionUrl: z.optional(
    z.strictObject({
      profile: z.string(),
      /** ARNs of the IAM principals allowed to call the URL. */
      invokers: z.optional(z.array(iamPrincipalArn)),
    }),
  ),
  scenarioTriggers: z.optional(
    z.array(
      z.strictObject({
        scenario: z.string(),
        tenant: z.string(),
        eventPattern: z.record(z.string(), z.unknown()),
        inputs: z.optional(z.record(z.string(), z.string())),
      }),
    ),
  ),
  // Values are checked by the functions' own rules (lib/snapshot-athena-settings.ts), one wording.
  snapshotAthena: z.optional(
    z.strictObject({
      mode: z.optional(z.string()),
      workGroup: z.optional(z.string()),
      database: z.optional(z.string()),
      minReportBytes: z.optional(z.number()),
    }),
  ),
  schedules: z.optional(
    z.array(
      z.strictObject({
        scenario: z.string(),
        tenant: z.string(),
        expression: z.string(),
        timeZone: z.optional(z.string()),
        input: z.optional(z.record(z.string(), z.unknown())),
        enabled: z.optional(z.boolean()),
      }),
    ),
  ),
});

/** The configuration as written: JSON. */
export type PlatformConfig = z.infer<typeof platformConfigSchema>;

/** The props of {@link ExternalToolsPlatformProps} a configuration sets. */
export type ConfiguredProps = Pick<
  ExternalToolsPlatformProps,
  | 'accessProfiles'
  | 'bedrockAgents'
  | 'agentCoreGateway'
  | 'mcpFunctionUrl'
  | 'scenarioTriggers'
  | 'schedules'
  | 'snapshotAthena'
>;

/**
 * The configuration of the app's context, checked.
 *
 * @param tryGetContext - `app.node.tryGetContext`.
 * @param cwd - where a relative `platformConfig` path is resolved from.
 * @throws Error naming the context key or file, the path of the bad value and what is accepted.
 */
export function platformConfig(tryGetContext: (key: string) => unknown, cwd = process.cwd()): PlatformConfig {
  const inline = parseContext(tryGetContext(PLATFORM_CONTEXT), `context ${PLATFORM_CONTEXT}`);
  const file = tryGetContext(PLATFORM_CONFIG_FILE_CONTEXT);
  let fromFile: PlatformConfig = {};
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') {
      throw new Error(`context ${PLATFORM_CONFIG_FILE_CONTEXT} must be the path of a JSON file`);
    }
    const absolute = path.resolve(cwd, file);
    let text: string;
    try {
      text = readFileSync(absolute, 'utf8');
    } catch (err) {
      throw new Error(
        `context ${PLATFORM_CONFIG_FILE_CONTEXT}: cannot read ${absolute} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    fromFile = parseContext(text, absolute);
  }
  return { ...inline, ...fromFile };
}

/** A configuration's props: principals built from their ARNs. */
export function configuredProps(config: PlatformConfig): ConfiguredProps {
  const { mcpFunctionUrl, scenarioTriggers, snapshotAthena, ...rest } = config;
  return {
    ...rest,
    ...(snapshotAthena ? { snapshotAthena: checkedSnapshotAthena(snapshotAthena) } : {}),
    ...(mcpFunctionUrl
      ? {
          mcpFunctionUrl: {
            profile: mcpFunctionUrl.profile,
            invokers: (mcpFunctionUrl.invokers ?? []).map((arn) => new ArnPrincipal(arn)),
          },
        }
      : {}),
    ...(scenarioTriggers
      ? {
          scenarioTriggers: scenarioTriggers.map((trigger) => ({
            ...trigger,
            eventPattern: trigger.eventPattern as EventPattern,
          })),
        }
      : {}),
  };
}

/**
 * `snapshotAthena` checked by the functions' own rules (lib/snapshot-athena-settings.ts), so
 * synth and the functions word a bad value alike (`snapshotAthena.mode ("sometimes" is not valid: …)`).
 *
 * @throws Error naming the prop, its value and what is accepted.
 */
function checkedSnapshotAthena(settings: NonNullable<PlatformConfig['snapshotAthena']>): SnapshotAthenaProps {
  snapshotAthenaEnvironment(settings as SnapshotAthenaProps);
  return settings as SnapshotAthenaProps;
}

function parseContext(value: unknown, source: string): PlatformConfig {
  if (value === undefined) return {};
  let object = value;
  if (typeof value === 'string') {
    try {
      object = JSON.parse(value);
    } catch (err) {
      throw new Error(`${source} is not JSON: ${jsonSyntaxMessage(err)}`);
    }
  }
  const parsed = platformConfigSchema.safeParse(object);
  if (!parsed.success) {
    // The shared wording: each problem at its path, with the keys accepted there.
    const problems = violationsOf(parsed.error, object, platformConfigSchema).map(
      (violation) => `${violation.path}: ${violation.message}`,
    );
    throw new Error(
      `${source}: ${problems.join('; ')} (docs/deploying.md, "Configuring entry points and schedules")`,
    );
  }
  return parsed.data;
}

/**
 * The context key that tells the app the organization to audit as a whole
 * (docs/organizations.md): when set, the app holds a third stack,
 * `ExternalToolsOrganizationAccess`, deployed in the management (or
 * CloudFormation delegated-administrator) account. An object, or its JSON:
 * `{"organizationalUnitIds": ["r-ab12"], "instanceRegion"?: "eu-west-1", "callAs"?: "SELF" | "DELEGATED_ADMIN"}`.
 */
export const ORGANIZATION_CONTEXT = 'organization';

const organizationConfigSchema = z.strictObject({
  organizationalUnitIds: z
    .array(
      z
        .string()
        .check(
          z.regex(
            /^(r-[0-9a-z]{4,32}|ou-[0-9a-z]{4,32}-[a-z0-9]{8,32})$/,
            'a root id (r-…) or an OU id (ou-…-…)',
          ),
        ),
    )
    .check(z.minLength(1, 'name at least one root or OU id')),
  instanceRegion: z.optional(
    z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1')),
  ),
  callAs: z.optional(z.enum(['SELF', 'DELEGATED_ADMIN'])),
});

/** The props of {@link OrganizationAccessStackProps} the `organization` context sets. */
export type OrganizationConfig = Pick<
  OrganizationAccessStackProps,
  'organizationalUnitIds' | 'instanceRegion' | 'callAs'
>;

/**
 * The `organization` context, checked; undefined when it is not set (the app then
 * holds its two stacks only).
 *
 * @throws Error naming the context key, the path of the bad value and what is accepted.
 */
export function organizationConfig(tryGetContext: (key: string) => unknown): OrganizationConfig | undefined {
  let value = tryGetContext(ORGANIZATION_CONTEXT);
  if (value === undefined) return undefined;
  const source = `context ${ORGANIZATION_CONTEXT}`;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new Error(`${source} is not JSON: ${jsonSyntaxMessage(err)}`);
    }
  }
  const parsed = organizationConfigSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`,
    );
    throw new Error(
      `${source}: ${problems.join('; ')} (accepted keys: ${Object.keys(organizationConfigSchema.shape).join(', ')}; docs/organizations.md, "Creating the StackSet")`,
    );
  }
  return parsed.data;
}
