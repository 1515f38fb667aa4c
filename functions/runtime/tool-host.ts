import type { Logger } from '@aws-lambda-powertools/logger';
import { awsAccessFromSecret } from './aws/credentials';
import { parseOrgTargetSecret } from './aws/organization';
import { memberSession, organizationSession } from './aws/organization-sessions';
import type { ToolContextServices } from './context';
import { logger } from './logger';
import type { SecretResolver } from './secrets/resolver';

/** Options of {@link toolHostServices}. */
export interface ToolHostOptions {
  /** See {@link ToolContextServices.awsFallbackToDefaultChain}. @default false */
  readonly awsFallbackToDefaultChain?: boolean;
  /** @default the platform logger */
  readonly logger?: Logger;
}

/**
 * The services of a place where tools run with their own credentials — a tool's
 * function, a local run, a test: the tenant's secrets, AWS access from `aws_*`
 * secrets, the platform logger. The dispatcher does not use it: the file tools it
 * runs need no AWS access, and leaving it out keeps STS out of its bundle.
 *
 * @example
 * const services = toolHostServices(new SecretResolver(new DynamoDbSecretReferenceStore(table)));
 */
export function toolHostServices(
  secrets: SecretResolver,
  options: ToolHostOptions = {},
): ToolContextServices {
  return {
    secrets,
    logger: options.logger ?? logger,
    awsAccess: awsAccessFromSecret,
    memberAccess: (secret, request, signal) =>
      memberSession({ ...request, target: parseOrgTargetSecret(secret), signal }),
    organizationAccess: (secret, request, signal) =>
      organizationSession({ ...request, target: parseOrgTargetSecret(secret), signal }),
    awsFallbackToDefaultChain: options.awsFallbackToDefaultChain ?? false,
  };
}
