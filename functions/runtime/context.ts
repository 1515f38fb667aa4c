import type { Logger } from '@aws-lambda-powertools/logger';
import type { AwsAccess, AwsAccessRequest } from './aws/credentials';
import type { Deadline } from './deadline';
import { PlatformError, SecretNotFoundError } from './errors';
import type { ToolInvocation } from './invocation';
import { currentSecretValues, SecretValues } from './secret-values';
import type { SecretResolver } from './secrets/resolver';
import type { ToolSpec } from './spec';

/** The secret every `aws` tool reads unless told otherwise. */
export const DEFAULT_AWS_SECRET = 'aws_default';

/**
 * Everything a tool handler may use besides its args. Secrets and credentials
 * are resolved on demand and never leave the tool's function.
 */
export interface ToolContext {
  readonly tool: string;
  readonly tenant: string;
  readonly runId: string;
  readonly callId: string;
  readonly scenario?: string;
  readonly level?: string;
  /** Powertools Logger with `tool`, `tenant`, `runId`, `callId` keys; every item is redacted. */
  readonly logger: Logger;
  /** From the Lambda's remaining time (or the CLI's budget). */
  readonly deadline: Deadline;
  /**
   * The tenant's secret, parsed (DESIGN.md, "Secret references").
   *
   * @throws PlatformError (`internal_error`) when the spec's `requiresSecrets` does not list the name.
   * @throws SecretNotFoundError | SecretInvalidError | UnsupportedRefKindError from the resolver.
   */
  secret(name: string): Promise<Record<string, unknown>>;
  /**
   * How to reach AWS for the tenant, from its `aws_*` secret (default `aws_default`).
   *
   * @throws SecretInvalidError when the payload has none of the accepted shapes.
   */
  aws(secretName?: string): Promise<AwsAccess>;
}

/** Turns an `aws_*` secret into AWS access (`awsAccessFromSecret`). */
export type AwsAccessResolver = (secret: Record<string, unknown>, request: AwsAccessRequest) => AwsAccess;

/**
 * Container-level services a context is built from. Tool hosts get theirs from
 * `toolHostServices()`; the dispatcher passes only a logger.
 */
export interface ToolContextServices {
  /** Absent where no tool needs secrets (the dispatcher's file tools). */
  readonly secrets?: SecretResolver;
  readonly logger: Logger;
  /**
   * Resolves AWS access. Absent in the dispatcher, whose file tools call no AWS
   * API (which keeps STS out of its bundle).
   */
  readonly awsAccess?: AwsAccessResolver;
  /**
   * Local runs only: when the tenant has no `aws_*` secret (or its env var is
   * unset), use the default credential chain instead of failing. Deployed
   * functions keep this off so a tenant never silently gets the platform's role.
   * @default false
   */
  readonly awsFallbackToDefaultChain?: boolean;
}

/**
 * Builds the context of one call.
 *
 * @param secretValues - where `secret()` records every string it resolved, so the
 *   call's result, error, summary and logs mask them by exact match.
 *   @default the values of the call in scope (`withSecretValues`), else a new set
 */
export function createToolContext(
  spec: ToolSpec,
  invocation: ToolInvocation,
  deadline: Deadline,
  services: ToolContextServices,
  secretValues: SecretValues = currentSecretValues() ?? new SecretValues(),
): ToolContext {
  const keys = {
    tool: spec.name,
    tenant: invocation.tenant,
    runId: invocation.runId,
    callId: invocation.callId,
  };
  const secret = async (name: string) => {
    if (!spec.requiresSecrets.includes(name)) {
      throw new PlatformError(
        'internal_error',
        `Tool ${spec.name} read secret "${name}" that its spec does not list`,
      );
    }
    if (!services.secrets)
      throw new PlatformError('internal_error', `No secret store is configured for ${spec.name}`);
    const value = await services.secrets.resolve(invocation.tenant, name);
    secretValues.add(value);
    return value;
  };
  return {
    ...keys,
    scenario: invocation.scenario,
    level: invocation.level,
    logger: services.logger.createChild({ persistentKeys: keys }),
    deadline,
    secret,
    async aws(secretName = DEFAULT_AWS_SECRET) {
      if (!services.awsAccess) {
        throw new PlatformError(
          'internal_error',
          `${spec.name} asked for AWS access where none is configured`,
        );
      }
      let payload: Record<string, unknown>;
      try {
        payload = await secret(secretName);
      } catch (err) {
        if (!(services.awsFallbackToDefaultChain && err instanceof SecretNotFoundError)) throw err;
        payload = {};
      }
      return services.awsAccess(payload, invocation);
    },
  };
}
