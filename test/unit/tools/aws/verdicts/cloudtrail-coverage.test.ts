/**
 * Issue 9, kind 3 ("enabled" taken for "working") and kind 6 (organization
 * trails owned by another account) for aws_cloudtrail_coverage, and the
 * CloudTrail examples AWS documents.
 */
import {
  CloudTrailClient,
  DescribeTrailsCommand,
  GetEventSelectorsCommand,
  GetTrailStatusCommand,
  type GetTrailStatusCommandOutput,
  type Trail,
  TrailNotFoundException,
} from '@aws-sdk/client-cloudtrail';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { redact } from '../../../../../functions/runtime/redact';
import {
  type CloudTrailCoverageValue,
  cloudtrailCoverageTool,
} from '../../../../../functions/tools/aws/cloudtrail-coverage';
import { findingId } from '../../../../../functions/tools/aws/shared/findings';
import {
  DOCUMENTED_EVENT_SELECTORS,
  DOCUMENTED_TRAIL_STATUS,
  DOCUMENTED_TRAILS,
} from '../../../../helpers/aws-documented-examples';
import { responseMetadata } from '../../../../helpers/aws-errors';
import { defaultChainToolServices, expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';

const stsMock = mockClient(STSClient);
const cloudTrailMock = mockClient(CloudTrailClient);

const ACCOUNT = '123456789012';
const MANAGEMENT_ACCOUNT = '111111111111';
const REGIONS = ['us-east-1', 'eu-west-1'];
const services = defaultChainToolServices();

async function coverage() {
  return expectSuccess<CloudTrailCoverageValue>(
    await runAwsTool(cloudtrailCoverageTool, { regions: REGIONS }, { services }),
  );
}

/** A multi-region trail homed in us-east-1 (CloudTrail API reference, "Trail"). */
function trail(name: string, owner = ACCOUNT, extra: Partial<Trail> = {}): Trail {
  return {
    Name: name,
    TrailARN: `arn:aws:cloudtrail:us-east-1:${owner}:trail/${name}`,
    HomeRegion: 'us-east-1',
    S3BucketName: `aws-cloudtrail-logs-${owner}`,
    IsMultiRegionTrail: true,
    IsOrganizationTrail: false,
    LogFileValidationEnabled: true,
    KmsKeyId: `arn:aws:kms:us-east-1:${owner}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
    ...extra,
  };
}

/** Every region lists `trails` (their own, or as shadow trails). */
function listed(...trails: Trail[]) {
  cloudTrailMock.on(DescribeTrailsCommand).resolves({ trailList: trails });
}

/** GetTrailStatus and GetEventSelectors (read and write management events) for `t`. */
function state(t: Trail, status: Partial<GetTrailStatusCommandOutput>) {
  cloudTrailMock
    .on(GetTrailStatusCommand, { Name: t.TrailARN })
    .resolves(status)
    .on(GetEventSelectorsCommand, { TrailName: t.TrailARN })
    .resolves({
      TrailARN: t.TrailARN,
      EventSelectors: [{ ReadWriteType: 'All', IncludeManagementEvents: true, DataResources: [] }],
    });
}

const trailNotFound = (arn: string) =>
  new TrailNotFoundException({
    message: `Unknown trail: ${arn} for the user: ${ACCOUNT}`,
    $metadata: responseMetadata(400),
  });

const WEEKS_AGO = new Date('2026-10-02T08:15:00.000Z');

beforeEach(() => {
  stsMock.reset();
  cloudTrailMock.reset();
  stsMock
    .on(GetCallerIdentityCommand)
    .resolves({ Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/auditor` });
});

describe('aws_cloudtrail_coverage does not take "logging" for "working" (issue 9, kind 3)', () => {
  it('fails coverage for a logging trail whose S3 delivery fails, naming the error and the last good delivery', async () => {
    // Prepare: the case.
    const main = trail('main');
    listed(main);
    state(main, { IsLogging: true, LatestDeliveryError: 'NoSuchBucket', LatestDeliveryTime: WEEKS_AGO });

    // Act
    const { value, summary } = await coverage();

    // Assess
    expect(value.covered).toEqual([]);
    expect(value.failing).toEqual(REGIONS);
    expect(value.regions[0]).toMatchObject({
      coverage: 'failing',
      coveredBy: [],
      failingTrails: [
        {
          name: 'main',
          deliveryErrors: [
            { channel: 's3', error: 'NoSuchBucket', lastDeliveryAt: '2026-10-02T08:15:00.000Z' },
          ],
        },
      ],
    });
    expect(value.findings.byCheck).toEqual({
      cloudtrail_region_delivery_failing: 2,
      cloudtrail_s3_delivery_failing: 1,
    });
    const trailFinding = value.findings.top.find((f) => f.check === 'cloudtrail_s3_delivery_failing');
    expect(trailFinding).toMatchObject({
      severity: 'high',
      resource: main.TrailARN,
      title:
        'Trail main: log file delivery to S3 fails with NoSuchBucket (last good delivery 2026-10-02T08:15:00.000Z)',
      details: expect.objectContaining({
        error: 'NoSuchBucket',
        s3BucketName: main.S3BucketName,
        logging: true,
      }),
      controls: { securityHub: ['CloudTrail.1'], cis: ['3.1'] },
    });
    const regionFinding = value.findings.top.find((f) => f.check === 'cloudtrail_region_delivery_failing');
    expect(regionFinding?.title).toContain(
      'are recorded but not delivered: trail main: log file delivery to S3 fails with NoSuchBucket',
    );
    expect(summary).toMatch(
      /^0 of 2 regions covered .*; 2 recorded but not delivered; 1 trail; 3 findings \(0 critical, 3 high\)$/,
    );
    expect(redact(value)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('fails coverage on a CloudWatch Logs delivery error too, and reports a digest error against validation', async () => {
    // Prepare
    const main = trail('main', ACCOUNT, {
      CloudWatchLogsLogGroupArn: `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:CloudTrail:*`,
    });
    listed(main);
    state(main, {
      IsLogging: true,
      LatestDeliveryTime: new Date('2026-11-30T11:55:00.000Z'),
      LatestCloudWatchLogsDeliveryError: 'AccessDeniedException',
      LatestCloudWatchLogsDeliveryTime: WEEKS_AGO,
      LatestDigestDeliveryError: 'AccessDenied',
    });

    // Act
    const { value } = await coverage();

    // Assess
    expect(value.failing).toEqual(REGIONS);
    const byCheck = Object.fromEntries(value.findings.top.map((f) => [f.check, f]));
    expect(byCheck.cloudtrail_cloudwatch_logs_delivery_failing).toMatchObject({
      severity: 'medium',
      title: expect.stringContaining(
        'delivery to CloudWatch Logs fails with AccessDeniedException (last good delivery 2026-10-02',
      ),
      details: expect.objectContaining({ logGroupArn: main.CloudWatchLogsLogGroupArn }),
      controls: { securityHub: ['CloudTrail.5'], cis: [] },
    });
    expect(byCheck.cloudtrail_digest_delivery_failing).toMatchObject({
      title: expect.stringContaining('fails with AccessDenied (last good delivery never reported)'),
      controls: { securityHub: ['CloudTrail.4'], cis: ['3.2'] },
    });
  });

  it('keeps a region covered by a second, working trail when one trail fails', async () => {
    // Prepare
    const broken = trail('broken');
    const backup = trail('backup');
    listed(broken, backup);
    state(broken, { IsLogging: true, LatestDeliveryError: 'NoSuchBucket', LatestDeliveryTime: WEEKS_AGO });
    state(backup, { IsLogging: true, LatestDeliveryTime: new Date('2026-11-30T11:55:00.000Z') });

    // Act
    const { value } = await coverage();

    // Assess
    expect(value.covered).toEqual(REGIONS);
    expect(value.findings.byCheck).toEqual({ cloudtrail_s3_delivery_failing: 1 });
  });
});

describe('aws_cloudtrail_coverage reports organization trails of another account as such (issue 9, kind 6)', () => {
  it('marks the management account’s trail organization-managed and its regions covered by the organization', async () => {
    // Prepare: the case: a member account's GetTrailStatus on the organization trail.
    const org = trail('org-trail', MANAGEMENT_ACCOUNT, { IsOrganizationTrail: true });
    listed(org);
    cloudTrailMock
      .on(GetTrailStatusCommand)
      .rejects(trailNotFound(org.TrailARN as string))
      .on(GetEventSelectorsCommand)
      .rejects(trailNotFound(org.TrailARN as string));

    // Act
    const { value, summary } = await coverage();

    // Assess
    expect(value.organization).toEqual(REGIONS);
    expect(value.unknown).toEqual([]);
    expect(value.regions[0]).toMatchObject({ coverage: 'organization', providedBy: ['org-trail'] });
    const listedTrail = value.trails[0];
    expect(listedTrail).toMatchObject({
      organizationManaged: true,
      ownerAccountId: MANAGEMENT_ACCOUNT,
      logging: null,
    });
    expect(listedTrail).not.toHaveProperty('errors');
    expect(value.findings.total).toBe(0);
    expect(summary).toMatch(
      /^0 of 2 regions covered .*; 2 by an organization trail of another account; 1 trail; 0 findings/,
    );
  });

  it('judges an organization trail of another account normally when its status can be read', async () => {
    // Prepare: a delegated administrator may read it.
    const org = trail('org-trail', MANAGEMENT_ACCOUNT, { IsOrganizationTrail: true });
    listed(org);
    state(org, { IsLogging: true, LatestDeliveryTime: new Date('2026-11-30T11:55:00.000Z') });

    // Act
    const { value } = await coverage();

    // Assess
    expect(value.covered).toEqual(REGIONS);
    expect(value.trails[0]).toMatchObject({ organizationManaged: false, logging: true });
  });

  it('keeps TrailNotFound an error for the account’s own trail', async () => {
    // Prepare
    const own = trail('own');
    listed(own);
    cloudTrailMock
      .on(GetTrailStatusCommand)
      .rejects(trailNotFound(own.TrailARN as string))
      .on(GetEventSelectorsCommand)
      .rejects(trailNotFound(own.TrailARN as string));

    // Act
    const { value } = await coverage();

    // Assess
    expect(value.unknown).toEqual(REGIONS);
    expect(value.trails[0]?.errors?.map((e) => [e.call, e.error.code])).toEqual([
      ['GetTrailStatus', 'not_found'],
      ['GetEventSelectors', 'not_found'],
    ]);
  });
});

describe('aws_cloudtrail_coverage on the CloudTrail examples AWS documents', () => {
  it('does not count the documented single-region trails as coverage, and judges their settings', async () => {
    // Prepare: describe-trails (Trail1, Trail2: single-region, validation off), get-trail-status, get-event-selectors.
    listed(...DOCUMENTED_TRAILS);
    cloudTrailMock
      .on(GetTrailStatusCommand)
      .resolves(DOCUMENTED_TRAIL_STATUS)
      .on(GetEventSelectorsCommand)
      .resolves(DOCUMENTED_EVENT_SELECTORS);

    // Act
    const { value } = await coverage();

    // Assess
    expect(value.uncovered).toEqual(REGIONS);
    expect(value.trails.map((t) => [t.name, t.logging, t.deliveryErrors.length, t.latestDeliveryAt])).toEqual(
      expect.arrayContaining([
        ['Trail1', true, 0, '2016-01-28T23:02:24.869Z'],
        ['Trail2', true, 0, '2016-01-28T23:02:24.869Z'],
      ]),
    );
    expect(value.findings.byCheck).toEqual({
      cloudtrail_region_not_covered: 2,
      cloudtrail_log_file_validation_disabled: 2,
      cloudtrail_logs_not_kms_encrypted: 1,
    });
    expect(value.findings.top.find((f) => f.check === 'cloudtrail_region_not_covered')).toMatchObject({
      id: expect.stringMatching(/^cloudtrail_region_not_covered:/),
      controls: { securityHub: ['CloudTrail.1'], cis: ['3.1'] },
    });
    expect(
      value.findings.top.find(
        (f) =>
          f.resource === 'arn:aws:cloudtrail:us-east-1:123456789012:trail/Trail2' &&
          f.check === 'cloudtrail_log_file_validation_disabled',
      )?.id,
    ).toBe(
      findingId(
        'cloudtrail_log_file_validation_disabled',
        'us-east-1',
        'arn:aws:cloudtrail:us-east-1:123456789012:trail/Trail2',
        ACCOUNT,
      ),
    );
  });
});
