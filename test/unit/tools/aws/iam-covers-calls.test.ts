import { API_CALL_CASES, awsAuditTools, loadApiCallCases } from '../../../../bench/api-call-cases';
import { REGISTERED_TOOLS, runApiCallCases } from '../../../../bench/api-calls';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { iamActionOf, isGranted } from '../../../helpers/iam-actions';

/**
 * Every AWS audit tool provides its API-call case, and the commands it sends in
 * that run are all covered by the IAM actions its spec declares (the actions its
 * function's role, and the customer role, are granted), so a call that would be
 * denied once deployed — the implicit `ec2:DescribeRegions` of `regions: "all"` —
 * fails here with the missing action named.
 */
describe('the AWS audit tools, against the calls they send', () => {
  it('each provide an API-call case beside their test', () => {
    // Act
    const { problems } = loadApiCallCases(toolCatalog);

    // Assess: each problem names the file to add
    expect(problems).toEqual([]);
    expect(awsAuditTools().length).toBeGreaterThan(0);
  });

  it('run their API-call case to the end, and declare in their spec the IAM action of every command it sends', async () => {
    // Prepare
    const undeclared: string[] = [];
    const failedRuns: string[] = [];
    let commands = 0;

    // Act
    await runApiCallCases(API_CALL_CASES, REGISTERED_TOOLS, (testCase, run) => {
      const declared = toolCatalog.get(testCase.tool).iam.flatMap((grant) => grant.actions);
      // A call the case does not answer fails (no network here): the case must stub every client the tool uses.
      const regionErrors = run.result.ok
        ? (
            (run.result.value as { regions?: { region: string; error?: { message: string } }[] }).regions ??
            []
          )
            .filter((line) => line.error)
            .map((line) => `${line.region}: ${line.error?.message}`)
        : [run.result.error.message];
      if (regionErrors.length > 0) {
        failedRuns.push(
          `${testCase.tool} (${testCase.account}) failed: ${regionErrors[0]} — list every SDK client the tool uses in the case's clients and answer its calls in arrange`,
        );
      }
      for (const sent of run.sent) {
        commands++;
        const needed = iamActionOf(sent.client, sent.command);
        if ('problem' in needed) undeclared.push(`${testCase.tool}: ${needed.problem}`);
        else if (needed.action !== null && !isGranted(needed.action, declared)) {
          undeclared.push(
            `${testCase.tool} sends ${sent.command} but its spec's iam lacks ${needed.action}: add it to the tool's .meta.ts`,
          );
        }
      }
    });

    // Assess
    expect(failedRuns).toEqual([]);
    expect([...new Set(undeclared)]).toEqual([]);
    expect(commands).toBeGreaterThan(API_CALL_CASES.length);
  }, 120_000);
});

describe('iamActionOf', () => {
  it.each([
    ['EC2Client', 'DescribeRegionsCommand', 'ec2:DescribeRegions'],
    ['S3Client', 'ListBucketsCommand', 's3:ListAllMyBuckets'],
    ['S3ControlClient', 'GetPublicAccessBlockCommand', 's3:GetAccountPublicAccessBlock'],
    ['STSClient', 'GetCallerIdentityCommand', null],
  ])('maps %s %s to %s', (client, command, action) => {
    expect(iamActionOf(client, command)).toEqual({ action });
  });

  it('says where to add a client it does not know', () => {
    expect(iamActionOf('KafkaClient', 'ListClustersCommand')).toEqual({
      problem: expect.stringContaining('add it to SERVICE_PREFIXES in test/helpers/iam-actions.ts'),
    });
  });

  it('matches wildcards as IAM does, and only them', () => {
    expect(isGranted('ce:GetCostAndUsage', ['ce:Get*'])).toBe(true);
    expect(isGranted('ce:GetCostAndUsage', ['ce:GetCost'])).toBe(false);
  });
});
