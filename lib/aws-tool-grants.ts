import type { ToolCatalog } from '../functions/runtime/catalog';
import { DEFAULT_ORG_SECRET } from '../functions/runtime/ids';
import type { IamDeny, IamGrant, ToolSpec } from '../functions/runtime/spec';
import { compareText } from '../functions/runtime/text';

/** Whether a tool reads AWS accounts (tag `aws`): its role may assume the customer role. */
export function isAwsTool(spec: Pick<ToolSpec, 'tags'>): boolean {
  return spec.tags.includes('aws');
}

/**
 * Whether a tool lists an AWS Organization (its spec reads `aws_org_default`): its role
 * may assume the organization role and no other, and its `iam` statements are what
 * the organization role holds (lib/organization-access-stack.ts), not the customer
 * role nor its own function's.
 */
export function isOrganizationTool(spec: Pick<ToolSpec, 'requiresSecrets'>): boolean {
  return spec.requiresSecrets.includes(DEFAULT_ORG_SECRET);
}

/** The STS actions an AWS tool's role holds on the customer role name, and nothing else of STS. */
export const CUSTOMER_ROLE_ACTIONS = ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'] as const;

/**
 * What the customer-account audit role must allow: the union of every AWS
 * tool's declared statements (docs/design.md, "ToolSpec": the customer-account role is
 * the union of the `aws` tools' actions), derived from the catalog so no second
 * list is ever kept by hand; organization tools' statements are the organization
 * role's ({@link isOrganizationTool}). Statements with the same resources are merged;
 * actions are de-duplicated and sorted.
 *
 * @example customerRoleGrants(toolCatalog) // [{ actions: ['cloudtrail:DescribeTrails', …], resources: ['*'] }]
 */
export function customerRoleGrants(
  catalog: ToolCatalog,
): (Required<Omit<IamGrant, 'wildcardReason'>> & Pick<IamGrant, 'wildcardReason'>)[] {
  const byResources = new Map<string, { actions: Set<string>; reasons: Set<string> }>();
  for (const { spec } of catalog.functionTools()) {
    if (!isAwsTool(spec) || isOrganizationTool(spec)) continue;
    for (const grant of spec.iam) {
      const resources = [...(grant.resources ?? ['*'])].sort();
      const key = JSON.stringify(resources);
      const merged = byResources.get(key) ?? { actions: new Set<string>(), reasons: new Set<string>() };
      for (const action of grant.actions) merged.actions.add(action);
      if (grant.wildcardReason) merged.reasons.add(grant.wildcardReason);
      byResources.set(key, merged);
    }
  }
  return [...byResources.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([key, { actions, reasons }]) => ({
      actions: [...actions].sort(),
      resources: JSON.parse(key) as string[],
      // The human decision for a wildcard on a non-read action travels with the merged statement.
      ...(reasons.size > 0 ? { wildcardReason: [...reasons].sort().join(' ') } : {}),
    }));
}

/**
 * The explicit Deny statements the customer-account role carries: every AWS
 * tool's `iamDeny` (the snapshot tools': no content read), once each by `sid`.
 * The role is shared by all AWS tools, and no AWS tool reads content, so the
 * Deny holds for the whole role.
 *
 * @throws Error when two tools declare different statements under one `sid`.
 */
export function customerRoleDenies(catalog: ToolCatalog): IamDeny[] {
  const bySid = new Map<string, IamDeny>();
  for (const { spec } of catalog.functionTools()) {
    if (!isAwsTool(spec)) continue;
    for (const deny of spec.iamDeny ?? []) {
      const known = bySid.get(deny.sid);
      if (known && JSON.stringify(known) !== JSON.stringify(deny)) {
        throw new Error(
          `Two AWS tools declare different Deny statements under the sid ${deny.sid} (${spec.name})`,
        );
      }
      bySid.set(deny.sid, deny);
    }
  }
  return [...bySid.values()];
}
