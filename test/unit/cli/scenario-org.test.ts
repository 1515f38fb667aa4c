import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { API_CALL_CASES, AUDIT_CLIENTS, clientStubs } from '../../../bench/api-call-cases';
import type { OrgReport } from '../../../functions/engine/org-report';
import { logger } from '../../../functions/runtime/logger';
import { toolCatalog } from '../../../functions/tools/catalog';
import { findScenario, loadScenarios } from '../../../lib/scenarios/loader';
import type { PlanLevel } from '../../../lib/scenarios/model';
import { credentialsProviderError, queryError } from '../../helpers/aws-errors';
import {
  arrangeOrganizationWorld,
  organizationWorld,
  WORLD_MANAGEMENT_ACCOUNT,
  worldAccountId,
} from '../../helpers/organization-world';
import { DEFAULT_BOT_TOKEN, type LocalSlack, startSlackServer } from '../../helpers/slack-server';
import { etp } from './run-etp';

/**
 * `etp scenario run aws_pulse_org --local`: the shipped organization scenario's
 * synthesized definition in the local interpreter, its accounts listed by
 * `aws_org_accounts` through the local dispatcher (the organization role of the
 * embedded `aws_org_default`, ETP_AWS_ORG_DEFAULT), one member session per account,
 * every audit answered by its API-call case, the report posted to a loopback Slack.
 */
const { stubs, stubOf } = clientStubs([...AUDIT_CLIENTS, OrganizationsClient]);
const pulseOrg = findScenario(loadScenarios(toolCatalog), 'aws_pulse_org');
const collect = pulseOrg.levels[0] as PlanLevel;

let localDir: string;
let slack: LocalSlack;

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  slack = await startSlackServer({ channels: { C0AWSPULSE: 'aws-pulse' } });
});
afterAll(async () => {
  await slack.stop();
  for (const stub of stubs.values()) stub.restore();
});

beforeEach(() => {
  for (const stub of stubs.values()) stub.reset();
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-cli-org-'));
  process.env.ETP_AWS_ORG_DEFAULT = JSON.stringify({
    management_role_arn: `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
    external_id: 'ext-id-cli-0001',
    member_role_name: 'ExternalToolsPlatformAudit',
  });
  process.env.ETP_SLACK_DEFAULT = JSON.stringify({ bot_token: DEFAULT_BOT_TOKEN });
  process.env.SLACK_API_URL = slack.apiUrl;
});
afterEach(() => {
  delete process.env.ETP_AWS_ORG_DEFAULT;
  delete process.env.ETP_SLACK_DEFAULT;
  delete process.env.SLACK_API_URL;
  rmSync(localDir, { recursive: true, force: true });
});

describe('etp scenario run aws_pulse_org --local', () => {
  it('audits each ACTIVE member account in its own session and prints the organization report', async () => {
    // Prepare: 5 members, one suspended; every audit answered by its case. (Refused and throttled
    // member roles, 50 accounts and a second run: test/e2e/org-pulse.test.ts.)
    for (const testCase of API_CALL_CASES.filter((c) => collect.intra_tools.includes(c.tool))) {
      testCase.arrange(stubOf);
    }
    const world = organizationWorld({ accounts: 5, states: { SUSPENDED: 1 } });
    const calls = arrangeOrganizationWorld(stubOf, world);

    // Act
    const { code, out, err } = await etp(
      [
        'scenario',
        'run',
        'aws_pulse_org',
        '--local',
        '--run-id',
        'org-cli-1',
        '--input',
        '{"regions":["eu-west-1"],"slack_channel":"C0AWSPULSE"}',
      ],
      { ETP_LOCAL_DIR: localDir },
    );

    // Assess: the listing, the 4 ACTIVE members audited, the management and suspended accounts named
    expect(err).not.toContain('execution failed');
    const report = JSON.parse(
      readFileSync(
        path.join(localDir, 'runs/default/aws_pulse_org/org-cli-1/levels/collect/organization.json'),
        'utf8',
      ),
    ) as OrgReport;
    expect(report.accounts).toEqual({
      selected: 6,
      audited: 4,
      partial: 0,
      failed: 0,
      notAudited: 2,
      partialFindings: 0,
    });
    expect(report.notAudited.map((account) => [account.accountId, account.status])).toEqual([
      [WORLD_MANAGEMENT_ACCOUNT, 'ACTIVE'],
      [worldAccountId(4), 'SUSPENDED'],
    ]);
    expect(report.rollUp.map((row) => row.accountId).sort()).toEqual(
      [0, 1, 2, 3].map((i) => worldAccountId(i)),
    );
    expect(report.rollUp.every((row) => row.findings > 0 && row.new === row.findings)).toBe(true);
    // The organization role once, then each ACTIVE member's audit role once (sessions cached per account)
    expect(calls.assumeRoleInputs.map((input) => input.RoleArn)).toEqual(
      expect.arrayContaining([
        `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
        ...[0, 1, 2, 3].map((i) => `arn:aws:iam::${worldAccountId(i)}:role/ExternalToolsPlatformAudit`),
      ]),
    );
    expect(calls.assumeRole.get(WORLD_MANAGEMENT_ACCOUNT)).toBe(1);
    expect(calls.assumeRole.get(worldAccountId(4))).toBeUndefined();
    // One Slack message: the organization's report
    expect(slack.messages).toHaveLength(1);
    expect(slack.messages[0]?.text).toContain(
      'AWS Pulse for the organization of tenant default (run org-cli-1)',
    );
    expect(slack.messages[0]?.text).toContain(`4 audited`);
    expect(slack.messages[0]?.text).toContain(worldAccountId(4));
    // Every level produced its result: exit 0, the summary on stdout
    expect(out).toContain('collect');
    expect(code).toBe(0);
  }, 120_000);

  it.each([
    [545, 'fits 8 KiB as given, not with the defaults and tenant', '8,266', '8,176'],
    [538, 'fits as given and with the defaults, not with the long tenant given', '8,214', '8,071'],
  ])(
    'refuses %i account ids (%s) before anything runs: exit 2, the size and the fix, no workspace',
    async (count, _why, bytes, accountsBytes) => {
      // Prepare
      const accounts = Array.from({ length: count }, (_, i) => String(100000000000 + i));
      const tenant = count === 538 ? ['--tenant', `tenant-${'x'.repeat(53)}`] : [];

      // Act
      const { code, err } = await etp(
        ['scenario', 'run', 'aws_pulse_org', '--local', ...tenant, '--input', JSON.stringify({ accounts })],
        { ETP_LOCAL_DIR: localDir },
      );

      // Assess: what the run's Start state would have refused, said once, before the run
      expect(code).toBe(2);
      expect(err).toContain(
        `error: Invalid input for aws_pulse_org: the input is ${bytes} bytes of JSON with the scenario's defaults and the tenant filled in, ` +
          `over the 8,192 bytes a run's input may hold (largest: accounts: ${accountsBytes} bytes,`,
      );
      expect(err).toContain(
        'name OU ids (ou-…) or root ids (r-…) in accounts instead of long lists of account ids, or "all"',
      );
      expect(err.match(/Invalid input/g)).toHaveLength(1);
      expect(err).not.toContain('Running aws_pulse_org');
      expect(existsSync(path.join(localDir, 'runs'))).toBe(false);
    },
  );

  /** Runs aws_pulse_org whose listing fails, and returns the report level's Slack text (the collect level's summary). */
  async function unlistedRun(runId: string): Promise<{ code: number; text: string }> {
    const { code } = await etp(
      [
        'scenario',
        'run',
        'aws_pulse_org',
        '--local',
        '--run-id',
        runId,
        '--input',
        '{"regions":["eu-west-1"],"slack_channel":"C0AWSPULSE"}',
      ],
      { ETP_LOCAL_DIR: localDir },
    );
    return { code, text: String(slack.messages.at(-1)?.text) };
  }

  const ORG_ROLE = `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`;

  it('says the accounts could not be listed for want of credentials, as (<code>: <message>), and what to set', async () => {
    // Prepare: no credentials anywhere in the platform's chain (the SDK raises before sending AssumeRole)
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 2 }));
    stubOf(STSClient).on(AssumeRoleCommand).rejects(credentialsProviderError());

    // Act
    const { code, text } = await unlistedRun('org-cli-nocreds');

    // Assess
    expect(text).toContain(
      "The organization's accounts could not be listed, so no account was audited (auth_failed: aws_org_accounts: " +
        // The role's ARN is a value of the tenant's secret: masked wherever it would be shown.
        `No AWS credentials were found to call STS with, so the role of the organization secret's management_role_arn in account ${WORLD_MANAGEMENT_ACCOUNT} (management or delegated administrator) could not be assumed: ` +
        'set AWS_PROFILE (a profile of ~/.aws/config) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys) to credentials allowed to assume it).',
    );
    expect(text).not.toMatch(/PlatformError|refused/);
    expect(code).not.toBe(0);
  }, 120_000);

  it('says STS refused the organization role, as (<code>: <message>)', async () => {
    // Prepare: the management account's trust refuses the platform
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 2 }));
    stubOf(STSClient)
      .on(AssumeRoleCommand)
      .rejects(
        queryError(
          'AccessDenied',
          `User is not authorized to perform: sts:AssumeRole on resource: ${ORG_ROLE}`,
          {
            httpStatusCode: 403,
          },
        ),
      );

    // Act
    const { code, text } = await unlistedRun('org-cli-refused');

    // Assess
    expect(text).toContain(
      "The organization's accounts could not be listed, so no account was audited (auth_failed: aws_org_accounts: " +
        `STS refused AssumeRole of the role of the organization secret's management_role_arn in account ${WORLD_MANAGEMENT_ACCOUNT} (management or delegated administrator): check that OrganizationAccessStack is deployed there`,
    );
    expect(text).not.toContain('PlatformError');
    expect(code).not.toBe(0);
  }, 120_000);
});
