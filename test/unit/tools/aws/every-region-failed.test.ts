/**
 * Every regional AWS tool fails (`ok: false`) when no region it was asked for
 * succeeded, instead of reporting an empty account with "n regions failed":
 * the fan-out they share (`forEachRegion`) decides it once for all of them.
 */
import { CloudTrailClient } from '@aws-sdk/client-cloudtrail';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { ComputeOptimizerClient } from '@aws-sdk/client-compute-optimizer';
import { EC2Client } from '@aws-sdk/client-ec2';
import { RDSClient } from '@aws-sdk/client-rds';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { awsAuditTools } from '../../../../bench/api-call-cases';
import { loadTool } from '../../../../bin/local/load-tool';
import { type Tool, toJsonSchema } from '../../../../functions/runtime/spec';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { ec2Error, sdkConnectionError } from '../../../helpers/aws-errors';
import { expectFailure, runAwsTool } from '../../../helpers/aws-tool';

const ec2Mock = mockClient(EC2Client);
const rdsMock = mockClient(RDSClient);
const coMock = mockClient(ComputeOptimizerClient);
const cloudTrailMock = mockClient(CloudTrailClient);
const cloudWatchMock = mockClient(CloudWatchClient);
const stsMock = mockClient(STSClient);

const ACCOUNT = '123456789012';
const REGIONS = ['eu-west-1', 'us-east-1'];

/**
 * Every regional tool, with the service its region errors carry: the AWS audit
 * tools of the catalog whose arguments take `regions` (no hand list to keep up).
 */
const REGIONAL_TOOLS: readonly [string, Tool, string][] = awsAuditTools()
  .filter((entry) => Object.hasOwn(toJsonSchema(entry.spec.inputSchema).properties ?? {}, 'regions'))
  .map((entry) => [entry.spec.name, loadTool(toolCatalog, entry.spec.name), entry.spec.service ?? 'ec2']);

/** Every AWS call of every regional client rejects with `error`. */
function everyRegionalCallRejects(error: () => Error): void {
  const reject = async () => {
    throw error();
  };
  ec2Mock.onAnyCommand().callsFake(reject);
  rdsMock.onAnyCommand().callsFake(reject);
  coMock.onAnyCommand().callsFake(reject);
  cloudTrailMock.onAnyCommand().callsFake(reject);
  cloudWatchMock.onAnyCommand().callsFake(reject);
}

beforeEach(() => {
  for (const mock of [ec2Mock, rdsMock, coMock, cloudTrailMock, cloudWatchMock, stsMock]) mock.reset();
  // The account-wide part of the CloudTrail audit: who the credentials belong to.
  stsMock.on(GetCallerIdentityCommand).resolves({
    Account: ACCOUNT,
    Arn: `arn:aws:iam::${ACCOUNT}:user/auditor`,
    UserId: 'AIDAEXAMPLE',
  });
  // The harness logs each failure (stderr): keep the output to the test results.
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('a regional AWS tool whose every region failed', () => {
  it.each(REGIONAL_TOOLS)(
    '%s fails with network_error when no region can be reached',
    async (_name, tool, service) => {
      // Prepare: no network.
      everyRegionalCallRejects(() => sdkConnectionError('ECONNREFUSED'));

      // Act
      const failure = expectFailure(await runAwsTool(tool, { regions: REGIONS }));

      // Assess
      const regionError = {
        code: 'network_error',
        message: `Could not reach the ${service} endpoint: connect ECONNREFUSED 127.0.0.1:443`,
        retryable: true,
        service,
        details: { errno: 'ECONNREFUSED' },
      };
      expect(failure.error).toEqual({
        code: 'network_error',
        message: `All 2 regions asked failed; first, eu-west-1: Could not reach the ${service} endpoint: connect ECONNREFUSED 127.0.0.1:443`,
        retryable: true,
        service,
        details: {
          regions: [
            { region: 'eu-west-1', error: regionError },
            { region: 'us-east-1', error: regionError },
          ],
        },
      });
    },
  );

  it.each(REGIONAL_TOOLS)('%s fails with access_denied when every region denies', async (_name, tool) => {
    // Prepare
    everyRegionalCallRejects(() =>
      ec2Error('AccessDenied', 'User is not authorized to perform this operation', { httpStatusCode: 403 }),
    );

    // Act
    const failure = expectFailure(await runAwsTool(tool, { regions: ['eu-west-1'] }));

    // Assess
    expect(failure.error).toMatchObject({
      code: 'access_denied',
      message:
        'The one region asked (eu-west-1) failed: AccessDenied: User is not authorized to perform this operation',
      retryable: false,
      details: { regions: [{ region: 'eu-west-1', error: { code: 'access_denied' } }] },
    });
  });
});
