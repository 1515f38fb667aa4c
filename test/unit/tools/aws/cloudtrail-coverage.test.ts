import {
  CloudTrailClient,
  CloudTrailServiceException,
  DescribeTrailsCommand,
  GetEventSelectorsCommand,
  type GetEventSelectorsCommandOutput,
  GetTrailStatusCommand,
  type Trail,
} from '@aws-sdk/client-cloudtrail';
import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID, CREATED } from '../../../../bench/aws-fixtures';
import { redact } from '../../../../functions/runtime/redact';
import { managementEventCoverage } from '../../../../functions/tools/aws/cloudtrail/event-selectors';
import {
  type CloudTrailCoverageValue,
  cloudtrailCoverageTool,
} from '../../../../functions/tools/aws/cloudtrail-coverage';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeCaller, arrangeRegions } from '../../../helpers/api-call-case';
import { responseMetadata } from '../../../helpers/aws-errors';
import { defaultChainToolServices, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';

/**
 * `aws_cloudtrail_coverage`'s representative run (its API-call case): the responses of every AWS
 * call it makes, in the shapes of the AWS API references. Its test uses it as a
 * fixture, the API-call bench (bench/api-calls.ts) counts its calls, the IAM
 * check (iam-covers-calls.test.ts) proves its spec declares them, and the
 * end-to-end runs of aws_pulse answer the account with it.
 */
/** The cases of `aws_cloudtrail_coverage`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_cloudtrail_coverage',
    clients: [STSClient, EC2Client, CloudTrailClient],
    account: 'one logging multi-region trail homed in us-east-1, 17 regions',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeCaller(stubOf);
      arrangeRegions(stubOf);
      const trailArn = `arn:aws:cloudtrail:us-east-1:${ACCOUNT_ID}:trail/management-events`;
      stubOf(CloudTrailClient)
        .on(DescribeTrailsCommand)
        .resolves({
          trailList: [
            {
              Name: 'management-events',
              TrailARN: trailArn,
              HomeRegion: 'us-east-1',
              S3BucketName: 'acme-cloudtrail-logs',
              IsMultiRegionTrail: true,
              IsOrganizationTrail: false,
              IncludeGlobalServiceEvents: true,
              LogFileValidationEnabled: true,
              KmsKeyId: `arn:aws:kms:us-east-1:${ACCOUNT_ID}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
              HasCustomEventSelectors: false,
              HasInsightSelectors: false,
            },
          ],
        })
        .on(GetTrailStatusCommand)
        .resolves({ IsLogging: true, LatestDeliveryTime: CREATED })
        .on(GetEventSelectorsCommand)
        .resolves({
          TrailARN: trailArn,
          EventSelectors: [{ ReadWriteType: 'All', IncludeManagementEvents: true, DataResources: [] }],
        });
    },
  },
];

const stsMock = mockClient(STSClient);
const ec2Mock = mockClient(EC2Client);
const cloudTrailMock = mockClient(CloudTrailClient);

const ACCOUNT = '123456789012';

// No aws_default row: the tool uses the default credential chain, which the mocked clients never call.
const services = defaultChainToolServices();

async function succeeded(args: Record<string, unknown> = {}) {
  return expectSuccess<CloudTrailCoverageValue>(await runAwsTool(cloudtrailCoverageTool, args, { services }));
}

/** A DescribeTrails item (CloudTrail API reference, "Trail"): well configured unless told otherwise. */
function trail(name: string, homeRegion: string, extra: Partial<Trail> = {}): Trail {
  return {
    Name: name,
    S3BucketName: `aws-cloudtrail-logs-${ACCOUNT}-${name}`,
    IncludeGlobalServiceEvents: true,
    IsMultiRegionTrail: true,
    HomeRegion: homeRegion,
    TrailARN: `arn:aws:cloudtrail:${homeRegion}:${ACCOUNT}:trail/${name}`,
    LogFileValidationEnabled: true,
    KmsKeyId: `arn:aws:kms:${homeRegion}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
    HasCustomEventSelectors: false,
    HasInsightSelectors: false,
    IsOrganizationTrail: false,
    ...extra,
  };
}

const arnOf = (t: Trail) => t.TrailARN as string;

/** The regions DescribeRegions answers; `af-south-1` is not opted in, so "all" leaves it out. */
function enabledRegions(...names: string[]): void {
  ec2Mock.on(DescribeRegionsCommand).resolves({
    Regions: [
      ...names.map((RegionName) => ({
        RegionName,
        Endpoint: `ec2.${RegionName}.amazonaws.com`,
        OptInStatus: 'opt-in-not-required',
      })),
      { RegionName: 'af-south-1', Endpoint: 'ec2.af-south-1.amazonaws.com', OptInStatus: 'not-opted-in' },
    ],
  });
}

/** What DescribeTrails (includeShadowTrails) answers in each region: its trails, or an error. */
function trailsIn(byRegion: Record<string, Trail[] | Error>): void {
  cloudTrailMock.on(DescribeTrailsCommand).callsFake(async (_input, getClient) => {
    const answer = byRegion[await getClient().config.region()] ?? [];
    if (answer instanceof Error) throw answer;
    return { trailList: answer };
  });
}

/** Management events read and write through the default basic selector. */
const ALL_MANAGEMENT: Partial<GetEventSelectorsCommandOutput> = {
  EventSelectors: [
    {
      ReadWriteType: 'All',
      IncludeManagementEvents: true,
      DataResources: [],
      ExcludeManagementEventSources: [],
    },
  ],
};

/** A trail's GetTrailStatus and GetEventSelectors answers, matched by ARN. */
function trailState(
  t: Trail,
  logging: boolean,
  selectors: Partial<GetEventSelectorsCommandOutput> = ALL_MANAGEMENT,
) {
  cloudTrailMock
    .on(GetTrailStatusCommand, { Name: arnOf(t) })
    .resolves({
      IsLogging: logging,
      LatestDeliveryTime: new Date('2026-11-30T11:55:00.000Z'),
      StartLoggingTime: new Date('2024-01-10T08:00:00.000Z'),
    })
    .on(GetEventSelectorsCommand, { TrailName: arnOf(t) })
    .resolves({ TrailARN: arnOf(t), ...selectors });
}

function accessDenied(): CloudTrailServiceException {
  return new CloudTrailServiceException({
    name: 'AccessDeniedException',
    message: 'User is not authorized to perform: cloudtrail:DescribeTrails',
    $fault: 'client',
    $metadata: responseMetadata(400),
  });
}

beforeEach(() => {
  stsMock.reset();
  ec2Mock.reset();
  cloudTrailMock.reset();
  stsMock.on(GetCallerIdentityCommand).resolves({
    UserId: 'AIDAEXAMPLEUSERID0001',
    Account: ACCOUNT,
    Arn: `arn:aws:iam::${ACCOUNT}:user/auditor`,
  });
});

describe('aws_cloudtrail_coverage', () => {
  it('reports a region without a logging multi-region trail as uncovered', async () => {
    // Prepare: the organization trail applies in two regions (as a shadow trail in eu-west-1);
    // ap-southeast-2 has only a single-region trail of its own.
    enabledRegions('us-east-1', 'eu-west-1', 'ap-southeast-2');
    const org = trail('org-trail', 'us-east-1', { IsOrganizationTrail: true });
    const local = trail('local-ap', 'ap-southeast-2', { IsMultiRegionTrail: false });
    trailsIn({ 'us-east-1': [org], 'eu-west-1': [org], 'ap-southeast-2': [local] });
    trailState(org, true);
    trailState(local, true);

    // Act
    const result = await succeeded();

    // Assess
    const value = result.value;
    expect(value).toMatchObject({
      accountId: ACCOUNT,
      regionsChecked: 3,
      covered: ['eu-west-1', 'us-east-1'],
      partial: [],
      uncovered: ['ap-southeast-2'],
      unknown: [],
      totalTrails: 2,
      organizationTrails: ['org-trail'],
    });
    expect(value.regions).toContainEqual({
      region: 'ap-southeast-2',
      coverage: 'uncovered',
      trails: ['local-ap'],
      coveredBy: [],
    });
    expect(value.regions).toContainEqual({
      region: 'eu-west-1',
      coverage: 'covered',
      trails: ['org-trail'],
      coveredBy: ['org-trail'],
    });
    expect(value.findings.top.map((f) => [f.check, f.severity, f.resource, f.region])).toEqual([
      ['cloudtrail_region_not_covered', 'high', 'ap-southeast-2', 'ap-southeast-2'],
    ]);
    expect(value.findings.top[0]?.id).toBe(
      findingId('cloudtrail_region_not_covered', 'ap-southeast-2', 'ap-southeast-2', ACCOUNT),
    );
    expect(value.trails.find((t) => t.name === 'org-trail')).toEqual({
      name: 'org-trail',
      arn: arnOf(org),
      homeRegion: 'us-east-1',
      multiRegion: true,
      organizationTrail: true,
      logFileValidation: true,
      kmsKeyId: org.KmsKeyId,
      s3BucketName: org.S3BucketName,
      cloudWatchLogsLogGroupArn: null,
      ownerAccountId: ACCOUNT,
      organizationManaged: false,
      logging: true,
      latestDeliveryError: null,
      latestDeliveryAt: expect.any(String),
      deliveryErrors: [],
      managementEvents: { read: true, write: true, selectors: 'basic', excludedSources: [] },
    });
    expect(cloudTrailMock.commandCalls(DescribeTrailsCommand)[0]?.args[0].input).toEqual({
      includeShadowTrails: true,
    });
    // Each trail is read once, in its home region, by ARN: 3 DescribeTrails + 2 trails × 2.
    expect(cloudTrailMock.commandCalls(GetTrailStatusCommand).map((c) => c.args[0].input)).toEqual(
      expect.arrayContaining([{ Name: arnOf(org) }, { Name: arnOf(local) }]),
    );
    const statusClient = cloudTrailMock.commandCalls(GetTrailStatusCommand, { Name: arnOf(org) })[0]
      ?.thisValue as CloudTrailClient | undefined;
    await expect(statusClient?.config.region()).resolves.toBe('us-east-1');
    expect(cloudTrailMock.calls()).toHaveLength(3 + 2 * 2);
    expect(redact(value)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(result.summary).toBe(
      '2 of 3 regions covered by a logging, delivering multi-region trail (management reads and writes); uncovered: ap-southeast-2; 2 trails; 1 finding (0 critical, 1 high)',
    );
  });

  it('flags write-only management events: the trail, and the regions as partially covered', async () => {
    // Prepare
    enabledRegions('us-east-1', 'eu-west-1');
    const writes = trail('writes-only', 'us-east-1');
    trailsIn({ 'us-east-1': [writes], 'eu-west-1': [writes] });
    trailState(writes, true, {
      EventSelectors: [{ ReadWriteType: 'WriteOnly', IncludeManagementEvents: true, DataResources: [] }],
    });

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.partial).toEqual(['eu-west-1', 'us-east-1']);
    expect(result.value.covered).toEqual([]);
    expect(result.value.regions[0]).toEqual({
      region: 'eu-west-1',
      coverage: 'partial',
      trails: ['writes-only'],
      coveredBy: ['writes-only'],
      missing: ['read'],
    });
    const trailFinding = result.value.findings.top.find(
      (f) => f.check === 'cloudtrail_management_events_incomplete',
    );
    expect(trailFinding).toMatchObject({
      severity: 'medium',
      resource: arnOf(writes),
      region: 'us-east-1',
      title: 'Trail writes-only logs management write events only',
      details: { read: false, write: true, multiRegion: true, organizationTrail: false },
    });
    expect(result.value.findings.byCheck).toEqual({
      cloudtrail_region_management_events_partial: 2,
      cloudtrail_management_events_incomplete: 1,
    });
  });

  it('reads advanced event selectors: Management with readOnly false is writes only', async () => {
    // Prepare
    enabledRegions('us-east-1');
    const advanced = trail('advanced', 'us-east-1');
    trailsIn({ 'us-east-1': [advanced] });
    trailState(advanced, true, {
      AdvancedEventSelectors: [
        {
          Name: 'Management events, writes',
          FieldSelectors: [
            { Field: 'eventCategory', Equals: ['Management'] },
            { Field: 'readOnly', Equals: ['false'] },
          ],
        },
        {
          Name: 'S3 data events',
          FieldSelectors: [
            { Field: 'eventCategory', Equals: ['Data'] },
            { Field: 'resources.type', Equals: ['AWS::S3::Object'] },
          ],
        },
      ],
    });

    // Act
    const result = await succeeded({ regions: ['us-east-1'] });

    // Assess
    expect(result.value.trails[0]?.managementEvents).toEqual({
      read: false,
      write: true,
      selectors: 'advanced',
      excludedSources: [],
    });
    expect(result.value.partial).toEqual(['us-east-1']);
    expect(ec2Mock.calls()).toHaveLength(0); // an explicit region list needs no DescribeRegions
  });

  it('reports a multi-region trail that is not logging, and leaves its regions uncovered', async () => {
    // Prepare
    enabledRegions('us-east-1');
    const stopped = trail('stopped', 'us-east-1', { LogFileValidationEnabled: false, KmsKeyId: undefined });
    trailsIn({ 'us-east-1': [stopped] });
    trailState(stopped, false);

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.uncovered).toEqual(['us-east-1']);
    expect(result.value.trails[0]).toMatchObject({
      logging: false,
      logFileValidation: false,
      kmsKeyId: null,
    });
    expect(Object.keys(result.value.findings.byCheck).sort()).toEqual([
      'cloudtrail_log_file_validation_disabled',
      'cloudtrail_logs_not_kms_encrypted',
      'cloudtrail_region_not_covered',
      'cloudtrail_trail_not_logging',
    ]);
    expect(result.value.findings.bySeverity).toMatchObject({ high: 2, medium: 2 });
  });

  it('reports a region whose trails cannot be listed as unknown, and the others as usual', async () => {
    // Prepare
    enabledRegions('us-east-1', 'eu-west-1');
    const main = trail('main', 'us-east-1');
    trailsIn({ 'us-east-1': [main], 'eu-west-1': accessDenied() });
    trailState(main, true);

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.covered).toEqual(['us-east-1']);
    expect(result.value.unknown).toEqual(['eu-west-1']);
    expect(result.value.regions.find((r) => r.region === 'eu-west-1')).toMatchObject({
      coverage: 'unknown',
      error: { code: 'access_denied', service: 'cloudtrail', details: { awsError: 'AccessDeniedException' } },
    });
    expect(result.value.findings.total).toBe(0);
    expect(result.summary).toBe(
      '1 of 2 regions covered by a logging, delivering multi-region trail (management reads and writes); ' +
        'coverage unknown in 1 (1 region failed); 1 trail; 0 findings (0 critical, 0 high)',
    );
  });

  it('keeps a trail whose selectors cannot be read, with the error, and its regions unknown', async () => {
    // Prepare
    enabledRegions('us-east-1');
    const main = trail('main', 'us-east-1');
    trailsIn({ 'us-east-1': [main] });
    trailState(main, true);
    cloudTrailMock.on(GetEventSelectorsCommand, { TrailName: arnOf(main) }).rejects(accessDenied());

    // Act
    const result = await succeeded();

    // Assess
    expect(result.value.unknown).toEqual(['us-east-1']);
    expect(result.value.trails[0]).toMatchObject({
      logging: true,
      managementEvents: null,
      errors: [{ call: 'GetEventSelectors', error: { code: 'access_denied' } }],
    });
    expect(result.value.findings.total).toBe(0);
    expect(result.summary).toBe(
      'CloudTrail coverage unknown in the one region asked: trails or regions unreadable; 1 trail; 0 findings (0 critical, 0 high)',
    );
  });
});

describe('managementEventCoverage', () => {
  it.each([
    ['All', true, true],
    ['ReadOnly', true, false],
    ['WriteOnly', false, true],
  ] as const)('reads basic ReadWriteType %s as read %p, write %p', (type, read, write) => {
    // Act
    const coverage = managementEventCoverage({
      EventSelectors: [{ ReadWriteType: type, IncludeManagementEvents: true }],
    });

    // Assess
    expect(coverage).toEqual({ read, write, selectors: 'basic', excludedSources: [] });
  });

  it('ignores basic selectors that exclude management events and keeps excluded sources', () => {
    // Act
    const coverage = managementEventCoverage({
      EventSelectors: [
        { ReadWriteType: 'All', IncludeManagementEvents: false },
        { ReadWriteType: 'WriteOnly', ExcludeManagementEventSources: ['kms.amazonaws.com'] },
      ],
    });

    // Assess
    expect(coverage).toEqual({
      read: false,
      write: true,
      selectors: 'basic',
      excludedSources: ['kms.amazonaws.com'],
    });
  });

  it('reads advanced readOnly NotEquals true as writes only and eventSource NotEquals as exclusions', () => {
    // Act
    const coverage = managementEventCoverage({
      AdvancedEventSelectors: [
        {
          FieldSelectors: [
            { Field: 'eventCategory', Equals: ['Management'] },
            { Field: 'readOnly', NotEquals: ['true'] },
            { Field: 'eventSource', NotEquals: ['rdsdata.amazonaws.com'] },
          ],
        },
      ],
    });

    // Assess
    expect(coverage).toEqual({
      read: false,
      write: true,
      selectors: 'advanced',
      excludedSources: ['rdsdata.amazonaws.com'],
    });
  });

  it('reads an advanced Management selector without a readOnly field as reads and writes', () => {
    // Act
    const coverage = managementEventCoverage({
      AdvancedEventSelectors: [
        {
          Name: 'Log all management events',
          FieldSelectors: [{ Field: 'eventCategory', Equals: ['Management'] }],
        },
      ],
    });

    // Assess
    expect(coverage).toEqual({ read: true, write: true, selectors: 'advanced', excludedSources: [] });
  });

  it('reports no management events for a trail without selectors', () => {
    // Act + Assess
    expect(managementEventCoverage({})).toEqual({
      read: false,
      write: false,
      selectors: 'none',
      excludedSources: [],
    });
  });
});
