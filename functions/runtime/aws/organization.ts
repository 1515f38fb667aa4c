/**
 * An AWS Organization as the unit a tenant audits (docs/organizations.md): the
 * tenant's organization target (its `aws_org_*` secret) and the shapes of a
 * run's account selection and plan. Which accounts a selection names is
 * organization-accounts.ts (`resolveAccounts`); the sessions opened in them,
 * organization-sessions.ts (`memberSession`, `organizationSession`).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../built-once';
import {
  AWS_REGION_PATTERN,
  EXTERNAL_ID_ACCEPTED,
  EXTERNAL_ID_PATTERN,
  IAM_ROLE_ARN_PATTERN,
  parseAwsPayload,
} from './credentials';

/** Secret names of the organization family start with this (`aws_org_default`); checked before `aws_`. */
export const ORG_SECRET_PREFIX = 'aws_org_';

/** The organization target every organization run reads unless told otherwise. */
export { DEFAULT_ORG_SECRET } from '../ids';

/**
 * The variable naming the organization role a deployed function may assume
 * (the CDK sets it to `ORGANIZATION_ROLE_NAME` where it grants that role): when
 * set, a `management_role_arn` naming another role is refused before STS is
 * called; unset (locally), any role is tried.
 */
export const ORGANIZATION_ROLE_NAME_ENV = 'ORGANIZATION_ROLE_NAME';

/** A tenant's organization target, parsed from its `aws_org_*` secret. */
export interface OrgTarget {
  /**
   * The role that reads AWS Organizations (and Cost Explorer) in the management
   * or delegated-administrator account: `arn:aws:iam::<account>:role/<name>`.
   */
  readonly managementRoleArn: string;
  /** The ExternalId the organization role's trust policy requires. */
  readonly externalId?: string;
  /** The audit role's name in every member account (the StackSet's role, `ExternalToolsPlatformAudit`). */
  readonly memberRoleName: string;
  /** The ExternalId of the member roles (the StackSet's parameter). @default {@link externalId} */
  readonly memberExternalId?: string;
  /** Region for regional clients when a tool is not told otherwise. @default the platform's region */
  readonly region?: string;
}

/** IAM role names: 1-64 characters of `[\w+=,.@-]` (IAM API reference, "CreateRole"). */
const ROLE_NAME_PATTERN = /^[\w+=,.@-]{1,64}$/;

const ORG_TARGET_ACCEPTED =
  'management_role_arn, external_id?, member_role_name, member_external_id?, region? ' +
  '(docs/organizations.md, "The organization target")';

const orgTargetSchema = builtOnce(() => {
  const externalId = z.optional(z.string().check(z.regex(EXTERNAL_ID_PATTERN, EXTERNAL_ID_ACCEPTED)));
  return z.strictObject({
    management_role_arn: z.string().check(z.regex(IAM_ROLE_ARN_PATTERN, 'an IAM role ARN')),
    external_id: externalId,
    member_role_name: z.string().check(z.regex(ROLE_NAME_PATTERN, 'an IAM role name')),
    member_external_id: externalId,
    region: z.optional(z.string().check(z.regex(AWS_REGION_PATTERN, 'an AWS region such as eu-west-1'))),
  });
});

/**
 * Parses an `aws_org_*` secret: `{"management_role_arn", "external_id"?,
 * "member_role_name", "member_external_id"?, "region"?}`, strict (an unknown
 * field is refused, never ignored). Also what `etp secrets seed --ref-kind
 * inline` checks a value against (functions/tools/secret-forms.ts).
 *
 * @throws SecretInvalidError (`secret_invalid`) naming the wrong fields, never their values.
 * @example
 * parseOrgTargetSecret({ management_role_arn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
 *   external_id: 'x1y2z3', member_role_name: 'ExternalToolsPlatformAudit' });
 * // { managementRoleArn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
 * //   externalId: 'x1y2z3', memberRoleName: 'ExternalToolsPlatformAudit' }
 */
export function parseOrgTargetSecret(value: Record<string, unknown>): OrgTarget {
  const parsed = parseAwsPayload(orgTargetSchema(), value, ORG_TARGET_ACCEPTED, 'AWS organization secret');
  return {
    managementRoleArn: parsed.management_role_arn,
    memberRoleName: parsed.member_role_name,
    ...(parsed.external_id === undefined ? {} : { externalId: parsed.external_id }),
    ...(parsed.member_external_id === undefined ? {} : { memberExternalId: parsed.member_external_id }),
    ...(parsed.region === undefined ? {} : { region: parsed.region }),
  };
}

/** The account id of an IAM role ARN (`arn:aws:iam::111122223333:role/X` → `111122223333`). */
export function accountOfRoleArn(roleArn: string): string {
  return roleArn.split(':')[4] as string;
}

/** The partition of an IAM role ARN (`aws`, `aws-us-gov`, `aws-cn`). */
function partitionOfRoleArn(roleArn: string): string {
  return roleArn.split(':')[1] as string;
}

/** The member role of one account: `arn:<partition>:iam::<accountId>:role/<memberRoleName>`. */
export function memberRoleArn(target: OrgTarget, accountId: string): string {
  return `arn:${partitionOfRoleArn(target.managementRoleArn)}:iam::${accountId}:role/${target.memberRoleName}`;
}

// --- Selecting accounts: the shapes (organization-accounts.ts reads them) ----------------------

/**
 * Which accounts of the organization a run audits.
 *
 * - `accounts`: `"all"` (every ACTIVE account but the management account), or a
 *   list of 12-digit account ids, OU ids (`ou-…`, the accounts of the OU and of
 *   every OU under it) and root ids (`r-…`);
 * - `exclude`: ids of the same forms, taken out of the selection (reported as
 *   not audited, "excluded").
 */
export interface AccountSelection {
  readonly accounts: 'all' | readonly string[];
  readonly exclude?: readonly string[];
}

/** One account a run audits. */
export interface OrgAccount {
  readonly accountId: string;
  /** The account's friendly name (1-50 characters; the id when Organizations gave none). */
  readonly name: string;
  /** Names of the OUs from the root down to the account's parent; `[]` for an account at the root. */
  readonly ouPath?: string[];
}

/** One selected account that is not audited, and why, in plain words. */
export interface NotAuditedAccount {
  readonly accountId: string;
  readonly name?: string;
  /**
   * The account's `State` (`SUSPENDED`, `PENDING_CLOSURE`, `CLOSED`,
   * `PENDING_ACTIVATION`; its deprecated `Status` when no `State` is given),
   * `ACTIVE` for an excluded or management account, `NOT_FOUND` for an id that
   * is not a member of the organization.
   */
  readonly status: string;
  readonly reason: string;
}

/** What `resolveAccounts` (organization-accounts.ts) found. */
export interface AccountPlan {
  /** The ACTIVE accounts to audit, by account id. */
  readonly targets: OrgAccount[];
  /** The selected accounts that are never audited, by account id. */
  readonly notAudited: NotAuditedAccount[];
}
