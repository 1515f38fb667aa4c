/**
 * An organization of 1,000 simulated accounts (test/helpers/organization-world.ts):
 * what planning it costs (Organizations requests, wall time), what Cost Explorer
 * costs once per organization run (issue 20: at most 3 requests whatever the number
 * of accounts), and how member sessions behave over a run longer than the
 * one-hour role-chaining limit (a new session before each hour ends, never a
 * request signed with credentials in their last 5 minutes).
 *
 * `npm run -s bench:organization`, also a section of `npm run bench`.
 */
import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { STSClient } from '@aws-sdk/client-sts';
import { CREDENTIAL_REFRESH_MARGIN_MS, clearAssumedRoleCache } from '../functions/runtime/aws/credentials';
import type { OrgTarget } from '../functions/runtime/aws/organization';
import { resolveAccounts } from '../functions/runtime/aws/organization-accounts';
import { memberSession } from '../functions/runtime/aws/organization-sessions';
import {
  costByLinkedAccount,
  MAX_ORGANIZATION_COST_REQUESTS,
} from '../functions/tools/aws/shared/organization-costs';
import { clientStubs, type StubOf } from '../test/helpers/api-call-case';
import {
  arrangeOrganizationCosts,
  arrangeOrganizationWorld,
  organizationWorld,
  WORLD_MANAGEMENT_ACCOUNT,
} from '../test/helpers/organization-world';
import { atMost, formatReport, type Section } from './report';

const ACCOUNTS = 1000;
const OUS = 50;
/** Length of the simulated long run, in minutes, one request a minute per account. */
const LONG_RUN_MINUTES = 150;
/** Accounts followed through the long run. */
const LONG_RUN_ACCOUNTS = 20;

const TARGET: OrgTarget = {
  managementRoleArn: `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
  externalId: 'bench-external-id',
  memberRoleName: 'ExternalToolsPlatformAudit',
};

const FAKE_CREDENTIALS = { accessKeyId: 'AKIAFAKEBENCHEXAMPLE', secretAccessKey: 'fake/bench/example' }; // fake test example

/** Plans and prices a 1,000-account organization, and follows member sessions through a 150-minute run. */
export async function measureOrganizationSessions(): Promise<Section> {
  const { stubs, stubOf } = clientStubs([OrganizationsClient, STSClient, CostExplorerClient]);
  try {
    return await measure(stubOf);
  } finally {
    // The stubs are the classes' own: later sections of `npm run bench` stub them afresh.
    for (const stub of stubs.values()) stub.restore();
    clearAssumedRoleCache();
  }
}

async function measure(stubOf: StubOf): Promise<Section> {
  const world = organizationWorld({ accounts: ACCOUNTS, ous: OUS, states: { SUSPENDED: 10, CLOSED: 5 } });
  const calls = arrangeOrganizationWorld(stubOf, world);
  arrangeOrganizationCosts(stubOf, world);

  const organizations = new OrganizationsClient({ region: 'us-east-1', credentials: FAKE_CREDENTIALS });
  const started = performance.now();
  const plan = await resolveAccounts(organizations, { accounts: 'all' });
  const planMs = performance.now() - started;

  const costs = await costByLinkedAccount(
    new CostExplorerClient({ region: 'us-east-1', credentials: FAKE_CREDENTIALS }),
  );

  // The long run: a virtual clock, one credentials() a minute per account.
  const realNow = Date.now;
  let now = realNow();
  Date.now = () => now;
  let lateSignatures = 0;
  clearAssumedRoleCache();
  calls.assumeRole.clear();
  try {
    const accounts = plan.targets.slice(0, LONG_RUN_ACCOUNTS);
    for (let minute = 0; minute < LONG_RUN_MINUTES; minute++) {
      for (const account of accounts) {
        const credentials = await memberSession({
          tenant: 'bench',
          runId: 'org-long-run',
          accountId: account.accountId,
          target: TARGET,
        }).credentials();
        if ((credentials.expiration?.getTime() ?? 0) - now < CREDENTIAL_REFRESH_MARGIN_MS) lateSignatures++;
      }
      now += 60_000;
    }
  } finally {
    Date.now = realNow;
  }
  const sessionsPerAccount =
    [...calls.assumeRole.values()].reduce((sum, count) => sum + count, 0) / LONG_RUN_ACCOUNTS;

  return {
    title: `Organization of ${ACCOUNTS} accounts in ${world.ous.length} OUs (simulated; 15 not ACTIVE)`,
    figures: [
      {
        name: 'accounts planned (targets / not audited)',
        value: `${plan.targets.length} / ${plan.notAudited.length}`,
      },
      { name: 'Organizations requests to plan the organization', value: String(calls.organizations) },
      { name: 'planning wall time (stubbed SDK)', value: `${planMs.toFixed(0)} ms` },
      atMost(
        'Cost Explorer requests per organization run',
        costs.costExplorer.requests,
        MAX_ORGANIZATION_COST_REQUESTS,
        '',
        0,
      ),
      {
        name: `member sessions per account over ${LONG_RUN_MINUTES} min`,
        value: sessionsPerAccount.toFixed(2),
      },
      atMost('requests signed in a session’s last 5 minutes', lateSignatures, 0, '', 0),
    ],
    notes: [
      `accounts costed: ${costs.accounts.length} in ${costs.costExplorer.requests} request(s), USD ${costs.costExplorer.estimatedCostUsd}`,
      'a member session lasts 1 hour (role chaining) and is renewed 5 minutes before it expires',
    ],
  };
}

if (require.main === module) {
  measureOrganizationSessions()
    .then((section) => process.stdout.write(formatReport(['etp organization bench'], [section])))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
