import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { awsClientConfig } from '../../runtime/aws/client-config';
import type { AccountPlan } from '../../runtime/aws/organization';
import { resolveAccounts } from '../../runtime/aws/organization-accounts';
import { defineTool } from '../../runtime/spec';
import { plural } from '../../runtime/text';
import { createToolHandler } from '../../runtime/tool-handler';
import { orgAccountsSpec } from './org-accounts.meta';

/**
 * Where AWS Organizations answers: its endpoint is global, served from us-east-1
 * in the commercial partition (AWS General Reference, "AWS Organizations endpoints").
 */
const ORGANIZATIONS_REGION = 'us-east-1';

/**
 * `aws_org_accounts` with its handler: `resolveAccounts` in the organization
 * role's session (`ctx.organization()`, the level's `aws_org_*` secret). What it
 * returns is the {@link AccountPlan} itself, so the engine's `org_targets` reads
 * it as it would read an in-process account directory.
 *
 * API calls per run: 2 + 2 per root and OU + 1 per further page of 20 (docs/organizations.md).
 */
export const orgAccountsTool = defineTool(orgAccountsSpec, async (ctx, args) => {
  const access = await ctx.organization();
  const client = new OrganizationsClient(awsClientConfig(access, ORGANIZATIONS_REGION));
  const plan: AccountPlan = await resolveAccounts(
    client,
    { accounts: args.accounts, exclude: args.exclude ?? [] },
    { deadline: ctx.deadline },
  );
  return {
    value: plan,
    summary: `${plural(plan.targets.length, 'account')} to audit, ${plan.notAudited.length} not audited`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(orgAccountsTool);
