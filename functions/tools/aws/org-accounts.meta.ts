import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { DEFAULT_ORG_SECRET } from '../../runtime/ids';
import { defineToolSpec } from '../../runtime/spec';

/**
 * An id an account selection accepts: 12-digit account ids, OU ids (`ou-…`) and
 * root ids (`r-…`) (Organizations API reference, "Account", "OrganizationalUnit",
 * "Root"); `resolveAccounts` checks them again before any request.
 */
const selectionId = builtOnce(() =>
  z
    .string()
    .check(
      z.regex(
        /^(\d{12}|ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}|r-[0-9a-z]{4,32})$/,
        'a 12-digit account id, an OU id (ou-…) or a root id (r-…)',
      ),
    ),
);

/** Ids in one `accounts` or `exclude` list at most (OU ids select whole subtrees, so long lists are rare). */
const MAX_SELECTION_IDS = 1000;

/**
 * `aws_org_accounts`: the accounts of the tenant's AWS Organization a run audits,
 * listed with the organization role (functions/runtime/aws/organization.ts,
 * `resolveAccounts`). Its function's role may assume the organization role
 * (`ExternalToolsPlatformOrganization`) in any account and no other role; the
 * Organizations actions below are the organization role's, never the function's own
 * (lib/tool-function.ts).
 */
export const orgAccountsSpec = defineToolSpec({
  name: 'aws_org_accounts',
  description:
    'Lists the accounts of the tenant\'s AWS Organization to audit: `accounts` "all" (every ACTIVE account but ' +
    'the management account), or account ids, OU ids (ou-…, with their child OUs) and root ids (r-…); ' +
    '`exclude` takes ids of the same forms. Returns `targets` (ACTIVE accounts with name and OU path, by id) ' +
    'and `notAudited` (suspended, closing, closed, not activated, excluded, not found, and the management ' +
    'account with "all"), each with its state and the reason in plain words. Read-only, through the ' +
    "organization role of the tenant's aws_org_* secret: DescribeOrganization, ListRoots, then per root and OU " +
    'ListOrganizationalUnitsForParent and ListAccountsForParent (20 a page, four containers at a time); no ' +
    'cost. A tree that cannot be read completely is an error, never a partial list.',
  inputSchema: () =>
    z.strictObject({
      accounts: z.union(
        [z.literal('all'), z.array(selectionId()).check(z.minLength(1), z.maxLength(MAX_SELECTION_IDS))],
        {
          error:
            'Expected "all" or a list of 1-1000 account ids (12 digits), OU ids (ou-…) or root ids (r-…)',
        },
      ),
      exclude: z.optional(z.array(selectionId()).check(z.maxLength(MAX_SELECTION_IDS))),
    }),
  tags: ['aws', 'organizations', 'read_only'],
  service: 'organizations',
  requiresSecrets: [DEFAULT_ORG_SECRET],
  sideEffects: 'none',
  iam: [
    {
      actions: [
        'organizations:DescribeOrganization',
        'organizations:ListRoots',
        'organizations:ListOrganizationalUnitsForParent',
        'organizations:ListAccountsForParent',
      ],
    },
  ],
  runtime: { memorySizeMb: 256, timeoutSeconds: 120 },
});
