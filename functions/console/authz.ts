/**
 * Who may see and change which tenant in the console: a signed-in user's groups
 * name their tenants (`tenant-<tenant id>`, one Cognito group per tenant), and
 * every tenant-scoped route checks the tenant of its path against them before
 * anything is read.
 */
import { isIdentifier, TENANT_ID } from '../runtime/ids';

/** The prefix of the group names that grant a tenant: `tenant-acme` grants tenant `acme`. */
export const TENANT_GROUP_PREFIX = 'tenant-';

/**
 * Cognito group names: 1-128 characters (Cognito API reference, "CreateGroup",
 * `GroupName`). A tenant id of 1-128 characters plus the prefix may exceed it:
 * {@link tenantGroupName} refuses those.
 */
export const MAX_GROUP_NAME_CHARS = 128;

/** A signed-in user as the API sees it. */
export interface ConsoleUser {
  /** Who it is, for `created_by` and answers (`console:<name>`): the Cognito username, or the OS user locally. */
  readonly name: string;
  /** The tenants the user may see and change; `'*'` only for the local console (one person on 127.0.0.1). */
  readonly tenants: readonly string[] | '*';
}

/**
 * The group that grants `tenant`.
 *
 * @throws Error when the tenant id is not one ({@link TENANT_ID}) or the name would exceed
 *   {@link MAX_GROUP_NAME_CHARS}.
 */
export function tenantGroupName(tenant: string): string {
  if (!isIdentifier(TENANT_ID, tenant)) {
    throw new Error(`console tenant ${JSON.stringify(tenant)} is not a tenant id: ${TENANT_ID.accepted}`);
  }
  const group = `${TENANT_GROUP_PREFIX}${tenant}`;
  if (group.length > MAX_GROUP_NAME_CHARS) {
    throw new Error(
      `console tenant ${tenant}: its group ${group} exceeds Cognito's ${MAX_GROUP_NAME_CHARS} characters`,
    );
  }
  return group;
}

/**
 * The tenants a user's groups grant, in the order given, without duplicates.
 * Groups that do not start with {@link TENANT_GROUP_PREFIX}, or whose rest is
 * not a tenant id, grant nothing.
 *
 * @example tenantsOfGroups(['tenant-acme', 'admins', 'tenant-']) // ['acme']
 */
export function tenantsOfGroups(groups: readonly string[]): string[] {
  const tenants = groups
    .filter((group) => group.startsWith(TENANT_GROUP_PREFIX))
    .map((group) => group.slice(TENANT_GROUP_PREFIX.length))
    .filter((tenant) => isIdentifier(TENANT_ID, tenant));
  return [...new Set(tenants)];
}

/** Whether `user` may see and change `tenant`. */
export function mayAccess(user: ConsoleUser, tenant: string): boolean {
  return user.tenants === '*' || user.tenants.includes(tenant);
}

/**
 * The `cognito:groups` claim of a Cognito ID or access token, as API Gateway's
 * JWT authorizer passes it on (`requestContext.authorizer.jwt.claims`): an array,
 * or the string form `[a b]` / `a,b` some integrations flatten it to.
 */
export function groupsOfClaim(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((group): group is string => typeof group === 'string');
  if (typeof claim !== 'string') return [];
  return claim
    .replace(/^\[|\]$/g, '')
    .split(/[\s,]+/)
    .filter(Boolean);
}

/**
 * The signed-in user of a Cognito ID token's claims (as API Gateway's JWT
 * authorizer passes them on): `cognito:username`, and the tenants its
 * `cognito:groups` grant; undefined without a username.
 */
export function userOfClaims(claims: Readonly<Record<string, unknown>> | undefined): ConsoleUser | undefined {
  const name = claims?.['cognito:username'] ?? claims?.username;
  if (typeof name !== 'string' || name === '') return undefined;
  return { name, tenants: tenantsOfGroups(groupsOfClaim(claims?.['cognito:groups'])) };
}
