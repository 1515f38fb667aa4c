import { DescribeInstancesCommand, DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { logger } from '../../../functions/runtime/logger';
import { describeInstancesResponder } from '../../helpers/ec2-pages';
import { etp } from './run-etp';

const ec2Mock = mockClient(EC2Client);

/** Two enabled regions: 3 instances in eu-west-1 and 2 in us-east-1, 4 of them running. */
function givenTwoRegionAccount(): void {
  ec2Mock.on(DescribeRegionsCommand).resolves({
    Regions: [
      {
        RegionName: 'us-east-1',
        Endpoint: 'ec2.us-east-1.amazonaws.com',
        OptInStatus: 'opt-in-not-required',
      },
      {
        RegionName: 'eu-west-1',
        Endpoint: 'ec2.eu-west-1.amazonaws.com',
        OptInStatus: 'opt-in-not-required',
      },
    ],
  });
  ec2Mock
    .on(DescribeInstancesCommand)
    .callsFake(
      describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 3, 'us-east-1': 2 }, pageSize: 1000 }),
    );
}

const DURATION = String.raw`\d+(?:\.\d)? m?s`;
const TENANT_RULE = '1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1)';
const RUN_RULE = '1-80 letters, digits, - or _ (a Step Functions execution name, e.g. run-2025-01-02)';

beforeAll(() => {
  logger.setLogLevel('SILENT');
});

beforeEach(() => {
  ec2Mock.reset();
  // The embedded store points the default tenant's secrets at these variables: none is set.
  delete process.env.ETP_AWS_DEFAULT;
  delete process.env.ETP_SLACK_DEFAULT;
});

describe('etp scenario list', () => {
  it('lists each scenario with its levels, inputs and description', async () => {
    // Act
    const { code, out } = await etp(['scenario', 'list']);

    // Assess
    expect(code).toBe(0);
    expect(out.split('\n')[1]?.split(/ {2,}/)).toEqual([
      'aws_pulse',
      'collect -> report',
      'tenant="default", regions="all", slack_channel="#aws-pulse"',
      "EC2 inventory of the tenant's account, summarized to a Slack channel.",
    ]);
  });
});

describe('etp scenario run --local', () => {
  it('runs every level, printing each call as it completes, and exits 0 although a tool failed', async () => {
    // Prepare
    givenTwoRegionAccount();

    // Act
    const { code, out, err } = await etp(['scenario', 'run', 'aws_pulse', '--local', '--run-id', 'run-1']);

    // Assess
    const lines = out.trimEnd().split('\n');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(lines[0]).toBe(
      'Running aws_pulse locally: run run-1, tenant default, secrets from the embedded default store',
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^collect  aws_ec2_inventory  … ok ${DURATION}  5 EC2 instances in 2 regions \\(4 running\\)$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^report   slack_post_message … ✗ secret_not_found: Secret "slack_default" of tenant "default" points at environment variable ETP_SLACK_DEFAULT, which is not set \\(${DURATION}\\)$`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^Completed aws_pulse run run-1 in ${DURATION}: 1 ok, 1 failed \\(secret_not_found\\)\\.$`),
    );
    expect(lines).toHaveLength(4);
  });

  it('prints the output JSON with --json, progress going to stderr, and applies --input and --tenant', async () => {
    // Prepare
    givenTwoRegionAccount();

    // Act
    const { code, out, err } = await etp([
      'scenario',
      'run',
      'aws_pulse',
      '--local',
      '--json',
      '--input',
      '{"regions":["eu-west-1"],"tenant":"ignored"}',
      '--tenant',
      'acme',
      '--run-id',
      'run-2',
    ]);

    // Assess
    const output = JSON.parse(out);
    expect(code).toBe(0);
    expect(output.scenario).toBe('aws_pulse');
    expect(output.input).toEqual({ tenant: 'acme', regions: ['eu-west-1'], slack_channel: '#aws-pulse' });
    expect(output.results.collect_0).toMatchObject({
      ok: true,
      callId: 'collect/0',
      summary: '3 EC2 instances in 1 region (2 running)',
    });
    expect(output.results.report_0).toMatchObject({
      ok: false,
      error: {
        code: 'secret_not_found',
        message:
          'Tenant "acme" has no secret reference named "slack_default" and environment variable ' +
          'ETP_SECRET_ACME__SLACK_DEFAULT is not set',
      },
    });
    expect(err).toContain('Running aws_pulse locally: run run-2, tenant acme');
    expect(err).toContain('Completed aws_pulse run run-2');
    expect(ec2Mock.commandCalls(DescribeRegionsCommand)).toHaveLength(0);
  });

  it('generates a local run id when none is given', async () => {
    // Prepare
    givenTwoRegionAccount();

    // Act
    const { out } = await etp(['scenario', 'run', 'aws_pulse', '--local']);

    // Assess
    expect(out.split('\n')[0]).toMatch(
      /^Running aws_pulse locally: run local-\d{8}T\d{6}Z-[0-9a-f]{6}, tenant default/,
    );
  });

  it.each([
    [
      ['aws_pulse'],
      'error: Only local runs start from here: add --local. A deployed run starts with aws stepfunctions start-execution on the aws_pulse state machine (see docs/deploying.md).\n',
    ],
    [['aws_nope', '--local'], 'error: Unknown scenario "aws_nope". Known scenarios: aws_pulse\n'],
    [
      ['aws_pulse', '--local', '--input', '{"region":"eu-west-1"}'],
      'error: --input has keys aws_pulse does not declare: region. Declared inputs: tenant, regions, slack_channel\n',
    ],
    [
      ['aws_pulse', '--local', '--input', '{"tenant":""}'],
      `error: input.tenant (empty) is not a tenant id: ${TENANT_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--input', '{"tenant":null}'],
      `error: input.tenant (null) is not a tenant id: ${TENANT_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--input', '{"tenant":"a b"}'],
      `error: input.tenant "a b" is not a tenant id: ${TENANT_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--tenant', ''],
      `error: --tenant (empty) is not a tenant id: ${TENANT_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--run-id', 'my run/1:x'],
      `error: --run-id "my run/1:x" is not a run id: ${RUN_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--run-id', 'r'.repeat(200)],
      `error: --run-id "${'r'.repeat(40)}"… (200 chars) is not a run id: ${RUN_RULE}\n`,
    ],
    [['aws_pulse', '--local', '--run-id', ''], `error: --run-id (empty) is not a run id: ${RUN_RULE}\n`],
    [
      ['aws_pulse', '--local', '--input', `{"regions":${'['.repeat(40)}${']'.repeat(40)}}`],
      'error: --input nests objects and arrays deeper than 32 levels\n',
    ],
    [
      ['aws_pulse', '--local', '--input', '"eu-west-1"'],
      `error: option '--input <json>' argument '"eu-west-1"' is invalid. Expected a JSON object such as '{"regions":["eu-west-1"]}', got a string. (see: etp scenario run --help)\n`,
    ],
  ])('exits 2 with one line for %j', async (args, message) => {
    // Act
    const outcome = await etp(['scenario', 'run', ...args]);

    // Assess
    expect(outcome).toEqual({ code: 2, out: '', err: message });
    expect(ec2Mock.calls()).toHaveLength(0);
  });
});
