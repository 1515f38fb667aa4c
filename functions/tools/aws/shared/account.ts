/**
 * The account an account-wide audit (S3, IAM, CloudTrail) looks at: who the
 * credentials belong to, and findings whose stable ids carry that account.
 */
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { awsClientConfig } from '../../../runtime/aws/client-config';
import type { AwsAccess } from '../../../runtime/aws/credentials';
import { buildFinding, type Finding, findingId } from './findings';

/** The account a tool's credentials belong to. */
export interface CallerAccount {
  /** 12-digit account id. */
  readonly accountId: string;
  /** ARN partition: `aws`, `aws-cn`, `aws-us-gov`. */
  readonly partition: string;
}

/**
 * The caller's account and partition, from STS GetCallerIdentity, which needs no
 * IAM permission and cannot be denied (STS API reference, "GetCallerIdentity").
 * Account-wide tools call it first: bad credentials then fail the call once with
 * `auth_failed`, before any resource is read, and finding ids carry the account.
 *
 * @throws the SDK's error (normalized by the harness), e.g. InvalidClientTokenId.
 * @example const { accountId, partition } = await callerAccount(access); // '123456789012', 'aws'
 */
export async function callerAccount(access: AwsAccess): Promise<CallerAccount> {
  const identity = await new STSClient(awsClientConfig(access)).send(new GetCallerIdentityCommand({}));
  return { accountId: identity.Account ?? 'unknown', partition: identity.Arn?.split(':')[1] ?? 'aws' };
}

/**
 * A finding with its stable id: `findingId(check, region, resource, accountId)`,
 * so the same check on the same resource of the same account has the same id on
 * every run, and two accounts' findings never share one; with the controls it
 * evidences (`controls.ts`).
 *
 * @example accountFinding('123456789012', { check: 's3_bucket_versioning_disabled', severity: 'low',
 *   resource: 'arn:aws:s3:::logs', region: 'eu-west-1', title: 'Versioning is disabled on bucket logs' });
 */
export function accountFinding(accountId: string, input: Omit<Finding, 'id' | 'controls'>): Finding {
  return buildFinding(findingId(input.check, input.region, input.resource, accountId), input);
}
