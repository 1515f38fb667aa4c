/**
 * A region the account cannot call, named in `regions`: an opt-in region the
 * account has not enabled answers every call as if the credentials were bad
 * (EC2 `AuthFailure`, JSON services `UnrecognizedClientException`, Query services
 * `InvalidClientTokenId`), and a name that is no region has no endpoint
 * (`ENOTFOUND`). Every regional tool asks EC2 DescribeRegions (`AllRegions: true`)
 * once and says what it is: `opt_in_required`, `invalid_args`; bad credentials,
 * which DescribeRegions rejects too, stay `auth_failed`.
 */
import { CloudTrailClient, CloudTrailServiceException } from '@aws-sdk/client-cloudtrail';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { ComputeOptimizerClient, ComputeOptimizerServiceException } from '@aws-sdk/client-compute-optimizer';
import {
  DescribeAddressesCommand,
  DescribeRegionsCommand,
  type DescribeRegionsCommandOutput,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { RDSClient, RDSServiceException } from '@aws-sdk/client-rds';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { awsAuditTools } from '../../../../bench/api-call-cases';
import { loadTool } from '../../../../bin/local/load-tool';
import { type Tool, toJsonSchema } from '../../../../functions/runtime/spec';
import { type EipsAuditValue, eipsAuditTool } from '../../../../functions/tools/aws/eips-audit';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { ec2Error, sdkConnectionError, serviceError } from '../../../helpers/aws-errors';
import { expectFailure, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

const ec2Mock = mockClient(EC2Client);
const rdsMock = mockClient(RDSClient);
const coMock = mockClient(ComputeOptimizerClient);
const cloudTrailMock = mockClient(CloudTrailClient);
const cloudWatchMock = mockClient(CloudWatchClient);
const stsMock = mockClient(STSClient);

const ACCOUNT = '123456789012';
/** An opt-in region (Asia Pacific (Hong Kong)) the account has not enabled. */
const DISABLED = 'ap-east-1';

/**
 * DescribeRegions with `AllRegions: true`, as the EC2 API reference's "Region"
 * shape answers it: every region of the partition with its `OptInStatus`.
 */
const ALL_REGIONS: DescribeRegionsCommandOutput['Regions'] = [
  { RegionName: 'eu-west-1', Endpoint: 'ec2.eu-west-1.amazonaws.com', OptInStatus: 'opt-in-not-required' },
  { RegionName: 'us-east-1', Endpoint: 'ec2.us-east-1.amazonaws.com', OptInStatus: 'opt-in-not-required' },
  { RegionName: 'me-south-1', Endpoint: 'ec2.me-south-1.amazonaws.com', OptInStatus: 'opted-in' },
  { RegionName: DISABLED, Endpoint: `ec2.${DISABLED}.amazonaws.com`, OptInStatus: 'not-opted-in' },
];

/** What each service answers a call signed for a region the account has not enabled. */
const ec2AuthFailure = () =>
  ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials', {
    httpStatusCode: 401,
  });
const DISABLED_REGION_ERRORS: Record<string, () => Error> = {
  ec2: ec2AuthFailure,
  rds: () =>
    serviceError(
      RDSServiceException,
      'InvalidClientTokenId',
      'The security token included in the request is invalid.',
      {
        httpStatusCode: 403,
      },
    ),
  'compute-optimizer': () =>
    serviceError(
      ComputeOptimizerServiceException,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
      { httpStatusCode: 400 },
    ),
  cloudtrail: () =>
    serviceError(
      CloudTrailServiceException,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
      { httpStatusCode: 400 },
    ),
};

/**
 * Every regional tool, with the service its region errors carry: the AWS audit
 * tools of the catalog whose arguments take `regions`, so a tool added later is
 * tested without a list to update.
 */
const REGIONAL_TOOLS: readonly [string, Tool, string][] = awsAuditTools()
  .filter((entry) => Object.hasOwn(toJsonSchema(entry.spec.inputSchema).properties ?? {}, 'regions'))
  .map((entry) => [entry.spec.name, loadTool(toolCatalog, entry.spec.name), entry.spec.service ?? 'ec2']);

/**
 * Every regional call fails as `regionError(service, region)` says; EC2
 * DescribeRegions, sent from the home region, answers `describeRegions`.
 */
function arrange(
  regionError: (service: string, region: string) => Error,
  describeRegions: () => Promise<Partial<DescribeRegionsCommandOutput>>,
): void {
  const reject =
    (service: string) =>
    async (_input: unknown, getClient: () => unknown): Promise<never> => {
      throw regionError(service, await mockedClientRegion(getClient));
    };
  ec2Mock.onAnyCommand().callsFake(reject('ec2'));
  ec2Mock.on(DescribeRegionsCommand).callsFake(describeRegions);
  rdsMock.onAnyCommand().callsFake(reject('rds'));
  coMock.onAnyCommand().callsFake(reject('compute-optimizer'));
  cloudTrailMock.onAnyCommand().callsFake(reject('cloudtrail'));
  cloudWatchMock.onAnyCommand().callsFake(reject('cloudwatch'));
}

/** What a disabled region answers, for the service asked. */
function disabledRegionError(service: string): Error {
  return (DISABLED_REGION_ERRORS[service] ?? ec2AuthFailure)();
}

beforeEach(() => {
  for (const mock of [ec2Mock, rdsMock, coMock, cloudTrailMock, cloudWatchMock, stsMock]) mock.reset();
  stsMock.on(GetCallerIdentityCommand).resolves({
    Account: ACCOUNT,
    Arn: `arn:aws:iam::${ACCOUNT}:user/auditor`,
    UserId: 'AIDAEXAMPLE',
  });
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('a regional AWS tool asked for a region the account cannot call', () => {
  it.each(REGIONAL_TOOLS)(
    '%s fails with opt_in_required, not auth_failed, in an opt-in region not enabled',
    async (_name, tool, service) => {
      // Prepare
      arrange(
        (svc) => disabledRegionError(svc),
        async () => ({ Regions: ALL_REGIONS }),
      );

      // Act
      const failure = expectFailure(await runAwsTool(tool, { regions: [DISABLED] }));

      // Assess
      expect(failure.error).toMatchObject({
        code: 'opt_in_required',
        retryable: false,
        message: expect.stringMatching(
          new RegExp(
            `^The one region asked \\(${DISABLED}\\) failed: Region ${DISABLED} is not enabled for this account ` +
              '\\(an opt-in region, OptInStatus not-opted-in\\): enable it',
          ),
        ),
        details: {
          regions: [
            {
              region: DISABLED,
              error: {
                code: 'opt_in_required',
                service,
                details: expect.objectContaining({ region: DISABLED, optInStatus: 'not-opted-in' }),
              },
            },
          ],
        },
      });
      // DescribeRegions was asked once, for every region with its opt-in status.
      expect(ec2Mock.commandCalls(DescribeRegionsCommand).map((call) => call.args[0].input)).toEqual([
        { AllRegions: true },
      ]);
    },
  );

  it.each(REGIONAL_TOOLS)(
    '%s fails with invalid_args naming the callable regions for a name that is no region',
    async (_name, tool) => {
      // Prepare: no endpoint resolves for the name.
      arrange(
        () => sdkConnectionError('ENOTFOUND'),
        async () => ({ Regions: ALL_REGIONS }),
      );

      // Act
      const failure = expectFailure(await runAwsTool(tool, { regions: ['eu-west-9'] }));

      // Assess
      expect(failure.error).toMatchObject({
        code: 'invalid_args',
        retryable: false,
        details: { regions: [{ region: 'eu-west-9', error: { code: 'invalid_args' } }] },
      });
      expect(failure.error.message).toContain(
        '"eu-west-9" is not a region of this account\'s partition (EC2 DescribeRegions does not list it); ' +
          'regions this account can call: eu-west-1, me-south-1, us-east-1, or "all"',
      );
    },
  );

  it.each(REGIONAL_TOOLS)(
    '%s keeps auth_failed when DescribeRegions rejects the credentials too',
    async (_name, tool, service) => {
      // Prepare: bad credentials fail everywhere, DescribeRegions included.
      arrange(
        (svc) => disabledRegionError(svc),
        async () => {
          throw disabledRegionError('ec2');
        },
      );

      // Act
      const failure = expectFailure(await runAwsTool(tool, { regions: ['eu-west-1'] }));

      // Assess
      expect(failure.error).toMatchObject({
        code: 'auth_failed',
        details: { regions: [{ region: 'eu-west-1', error: { code: 'auth_failed', service } }] },
      });
    },
  );

  it('keeps the enabled regions and says which region is not enabled, in the result', async () => {
    // Prepare
    arrange(
      (svc) => disabledRegionError(svc),
      async () => ({ Regions: ALL_REGIONS }),
    );
    ec2Mock.on(DescribeAddressesCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === DISABLED) throw disabledRegionError('ec2');
      if (region === 'eu-west-9') throw sdkConnectionError('ENOTFOUND');
      return { Addresses: [{ AllocationId: 'eipalloc-1', PublicIp: '203.0.113.10', Domain: 'vpc' }] };
    });

    // Act
    const { value, summary } = expectSuccess<EipsAuditValue>(
      await runAwsTool(eipsAuditTool, { regions: ['eu-west-1', DISABLED, 'eu-west-9'] }),
    );

    // Assess
    expect(value.addresses).toBe(1);
    expect(
      value.regions.map((line) => ('error' in line ? [line.region, line.error.code] : [line.region])),
    ).toEqual([['eu-west-1'], [DISABLED, 'opt_in_required'], ['eu-west-9', 'invalid_args']]);
    expect(summary).toContain('2 regions failed');
  });

  it('asks nothing more when every region answers', async () => {
    // Prepare
    ec2Mock.on(DescribeAddressesCommand).resolves({ Addresses: [] });

    // Act
    expectSuccess(await runAwsTool(eipsAuditTool, { regions: ['eu-west-1', 'us-east-1'] }));

    // Assess
    expect(ec2Mock.commandCalls(DescribeRegionsCommand)).toHaveLength(0);
  });
});
