import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { logger } from '../../../functions/runtime/logger';
import { describeInstancesResponder } from '../../helpers/ec2-pages';
import { shippedScenarioNames } from '../../helpers/scenarios';
import { etp } from './run-etp';

const ec2Mock = mockClient(EC2Client);
const bedrockMock = mockClient(BedrockRuntimeClient);
const sfnMock = mockClient(SFNClient);
const stsMock = mockClient(STSClient);

/** A small scenario: an inventory, an agent that finishes at once, a Slack post. */
const MINI = `
name: mini
description: An inventory, its analysis and a Slack post.
inputs:
  tenant: { type: string, description: Tenant., default: default }
  regions: { type: regions, description: Regions., default: [eu-west-1] }
levels:
  - name: collect
    intra_tools: [aws_ec2_inventory]
    calls:
      - tool: aws_ec2_inventory
        args: { regions: "{{input.regions}}" }
  - name: analyze
    model: anthropic.claude-3-5-haiku-20241022-v1:0
    prompt: "{{levels.collect.results}}"
    max_turns: 2
  - name: report
    intra_tools: [slack_post_message]
    calls:
      - tool: slack_post_message
        args: { channel: C0AWSPULSE, text: "{{levels.analyze.summary}}" }
`;

const DURATION = String.raw`\d+(?:\.\d)? m?s`;
const TENANT_RULE = '1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1)';
const RUN_RULE = '1-80 letters, digits, - or _ (a Step Functions execution name, e.g. run-2025-01-02)';

let scenariosDir: string;
let localDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  logger.setLogLevel('SILENT');
});

beforeEach(() => {
  ec2Mock.reset();
  bedrockMock.reset();
  sfnMock.reset();
  stsMock.reset();
  // The embedded store points the default tenant's secrets at these variables: none is set.
  delete process.env.ETP_AWS_DEFAULT;
  delete process.env.ETP_SLACK_DEFAULT;
  scenariosDir = mkdtempSync(path.join(tmpdir(), 'etp-cli-scenarios-'));
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-cli-runs-'));
  writeFileSync(path.join(scenariosDir, 'mini.yaml'), MINI);
  env = { ETP_SCENARIOS_DIR: scenariosDir, ETP_LOCAL_DIR: localDir };
  ec2Mock
    .on(DescribeInstancesCommand)
    .callsFake(describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 3 }, pageSize: 1000 }));
  bedrockMock.on(ConverseCommand).resolves({
    output: {
      message: {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't1', name: 'finish', input: { summary: 'Three instances, all fine.' } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    metrics: { latencyMs: 400 },
  });
});

afterEach(() => {
  rmSync(scenariosDir, { recursive: true, force: true });
  rmSync(localDir, { recursive: true, force: true });
});

describe('etp scenario list', () => {
  it('lists each shipped scenario with its levels, inputs and description', async () => {
    // Act
    const { code, out } = await etp(['scenario', 'list']);

    // Assess
    const rows = out
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/ {2,}/));
    expect(code).toBe(0);
    expect(rows.map((row) => row[0])).toEqual(shippedScenarioNames());
    expect(rows.map((row) => row.slice(0, 3))).toEqual(
      expect.arrayContaining([
        [
          'aws_pulse',
          'collect (plan) -> analyze (agent) -> report (plan)',
          'tenant="default", regions="all", slack_channel="#aws-pulse"',
        ],
        [
          'incident_response',
          'gather (plan) -> triage (agent) -> notify (plan)',
          'tenant="default", incident="Unexpected activity reported in the AWS account.", regions="all", slack_channel="#incidents", pagerduty_incident: string, github_repo: string, lookback_hours=6',
        ],
        [
          'snapshot_forensics',
          'scan (plan) -> investigate (agent) -> report (plan)',
          'tenant="default", regions="all", slack_channel="#backup-forensics"',
        ],
      ]),
    );
  });
});

describe('etp scenario validate', () => {
  it('says a shipped scenario is valid', async () => {
    // Act
    const outcome = await etp(['scenario', 'validate', 'aws_pulse']);

    // Assess
    expect(outcome).toEqual({
      code: 0,
      out: 'aws_pulse: valid (collect (plan) -> analyze (agent) -> report (plan))\n',
      err: '',
    });
  });

  it('prints every problem of a file, one per line, and exits 1', async () => {
    // Prepare
    const file = path.join(scenariosDir, 'typos.yaml');
    writeFileSync(
      file,
      MINI.replace('name: mini', 'name: typos')
        .replace('intra_tools: [aws_ec2_inventory]', 'intra_tools: [aws_ec2_inventroy]')
        .replace('{{levels.collect.results}}', '{{levels.colect.results}}')
        .replace('{{levels.analyze.summary}}', '{{input.channel}}'),
    );

    // Act
    const { code, out, err } = await etp(['scenario', 'validate', file]);

    // Assess
    expect({ code, out }).toEqual({ code: 1, out: '' });
    expect(err.split('\n').filter(Boolean)).toEqual([
      '4 problems in the scenario files:',
      expect.stringMatching(
        /^- typos\.yaml: levels\[0\] \(collect\)\.intra_tools: Unknown tool "aws_ec2_inventroy"\. Registered tools: (?:\w+, )*aws_cloudtrail_coverage, /,
      ),
      "- typos.yaml: levels[0] (collect).calls[0]: calls aws_ec2_inventory, which the level's intra_tools (aws_ec2_inventroy) does not list",
      '- typos.yaml: levels[1] (analyze).prompt: {{levels.colect.results}}: no level "colect". Earlier levels: collect',
      '- typos.yaml: levels[2] (report).calls[0].args.text: {{input.channel}}: no input "channel". Declared inputs: tenant, regions',
    ]);
  });

  it.each([
    [['nope'], 'error: Unknown scenario "nope". Known scenarios: mini\n'],
    [
      ['missing.yaml'],
      'error: missing.yaml: no such file (give a scenario name or the path of a YAML file)\n',
    ],
  ])('exits 2 for %j', async (args, message) => {
    // Act
    const outcome = await etp(['scenario', 'validate', ...args], env);

    // Assess
    expect(outcome).toEqual({ code: 2, out: '', err: message });
  });
});

describe('etp scenario run --local', () => {
  it('prints each level, turn and call on stderr, the run summary on stdout, and exits 1 when a level has no result', async () => {
    // Act
    const { code, out, err } = await etp(['scenario', 'run', 'mini', '--local', '--run-id', 'run-1'], env);

    // Assess: progress on stderr…
    const lines = err.trimEnd().split('\n');
    expect(code).toBe(1);
    expect(lines[0]).toBe(
      `Running mini locally: run run-1, tenant default, secrets from the embedded default store, model Bedrock (us-east-1), workspace ${path.join(localDir, 'runs/default/mini/run-1')}`,
    );
    expect(lines.slice(1, 9)).toEqual([
      '▸ collect (plan: 1 call)',
      expect.stringMatching(
        new RegExp(`^ {4}aws_ec2_inventory +ok ${DURATION} {2}3 EC2 instances in 1 region \\(2 running\\)$`),
      ),
      '  collect: 1 call: 1 ok',
      '▸ analyze (agent: anthropic.claude-3-5-haiku-20241022-v1:0, at most 2 turns)',
      '  turn 1: 120 tokens in, 30 out → finish',
      expect.stringMatching(new RegExp(`^ {4}finish +ok ${DURATION} {2}Three instances, all fine\\.$`)),
      '  analyze: finished after 1 turn, 1 call (120 tokens in, 30 out)',
      '▸ report (plan: 1 call)',
    ]);
    expect(lines[9]).toMatch(
      /^ {4}slack_post_message +✗ secret_not_found: Secret "slack_default" of tenant "default"/,
    );
    expect(lines[10]).toBe('  report: 1 call: 0 ok, 1 failed (secret_not_found)');
    expect(lines.at(-1)).toBe('Finished mini run run-1: incomplete.');
    // …and the result, the run summary, alone on stdout.
    expect(out.split('\n')[0]).toMatch(
      /^Run summary: mini run run-1 \(tenant default\) in .*: incomplete \(report ended without a result\)$/,
    );
    expect(out).toContain('model tokens (analyze: anthropic.claude-3-5-haiku-20241022-v1:0)');
    expect(out).toContain('Amazon Bedrock pricing, on-demand, us-east-1, Claude 3.5 Haiku');
    expect(err).not.toContain('Run summary');
  });

  it('never prints credentials a --model-endpoint URL carries', async () => {
    // Act
    const { err } = await etp(
      [
        'scenario',
        'run',
        'mini',
        '--local',
        '--run-id',
        'run-4',
        '--model-endpoint',
        'http://admin:fake-endpoint-password-01@127.0.0.1:9/?api_key=fake-endpoint-key-0001',
      ],
      env,
    );

    // Assess
    expect(err.split('\n')[0]).toContain('model at http://admin:<redacted>@127.0.0.1:9/?api_key=<redacted>,');
    expect(err).not.toContain('fake-endpoint-password-01');
    expect(err).not.toContain('fake-endpoint-key-0001');
  });

  it('prints only the output JSON on stdout with --json, progress on stderr, and applies --input and --tenant', async () => {
    // Act
    const { code, out, err } = await etp(
      [
        'scenario',
        'run',
        'mini',
        '--local',
        '--json',
        '--input',
        '{"regions":["eu-west-1"],"tenant":"x"}',
        '--tenant',
        'acme',
        '--run-id',
        'run-2',
      ],
      env,
    );

    // Assess: the keys docs/cli.md lists (mini keeps no watermark)
    const output = JSON.parse(out);
    expect(code).toBe(1);
    expect(Object.keys(output).sort()).toEqual(
      ['completion', 'input', 'levels', 'runId', 'scenario', 'summary', 'summaryFile', 'tenant'].sort(),
    );
    expect(output.summaryFile).toEqual({ path: 'summary.json' });
    expect(output).toMatchObject({
      scenario: 'mini',
      runId: 'run-2',
      tenant: 'acme',
      input: { tenant: 'acme', regions: ['eu-west-1'] },
    });
    expect(output.levels.analyze).toMatchObject({
      outcome: 'finished',
      summary: 'Three instances, all fine.',
    });
    expect(
      output.summary.levels.map((level: { name: string; hasResult: boolean }) => [
        level.name,
        level.hasResult,
      ]),
    ).toEqual([
      // acme has no aws_default: a local run falls back to the default credential chain.
      ['collect', true],
      ['analyze', true],
      // …but no Slack secret.
      ['report', false],
    ]);
    expect(err).toContain('Running mini locally: run run-2, tenant acme');
    expect(err).toContain('Finished mini run run-2: incomplete.');
  });

  it('names no model in its first line when the scenario has no agent level', async () => {
    // Prepare: mini's collect level alone.
    writeFileSync(path.join(scenariosDir, 'mini.yaml'), MINI.replace(/ {2}- name: analyze[\s\S]*$/, ''));

    // Act
    const { code, err } = await etp(['scenario', 'run', 'mini', '--local', '--run-id', 'run-3'], env);

    // Assess
    expect(code).toBe(0);
    expect(err.split('\n')[0]).toBe(
      `Running mini locally: run run-3, tenant default, secrets from the embedded default store, workspace ${path.join(localDir, 'runs/default/mini/run-3')}`,
    );
  });

  it('exits 0 when every level produced its result', async () => {
    // Prepare
    process.env.ETP_SLACK_DEFAULT = JSON.stringify({ webhook_url: 'http://127.0.0.1:9/services/T0/B0/x' });
    writeFileSync(path.join(scenariosDir, 'mini.yaml'), MINI.replace(/ {2}- name: report[\s\S]*$/, ''));

    // Act
    const { code } = await etp(['scenario', 'run', 'mini', '--local', '--run-id', 'run-3'], env);

    // Assess
    expect(code).toBe(0);
  });

  it.each([
    [
      ['aws_pulse'],
      'error: Only local runs start from here: add --local. A deployed run starts with etp scenario start aws_pulse --tenant <tenant>.\n',
    ],
    [
      ['aws_nope', '--local'],
      `error: Unknown scenario "aws_nope". Known scenarios: ${shippedScenarioNames().join(', ')}\n`,
    ],
    [
      ['aws_pulse', '--local', '--input', '{"regions":5}'],
      'error: Invalid input for aws_pulse: regions: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got number 5\n',
    ],
    [
      ['aws_pulse', '--local', '--input', '{"region":"eu-west-1","slack_channel":7}'],
      'error: Invalid input for aws_pulse: region: not declared by aws_pulse. Declared inputs: tenant, budget_usd, regions, slack_channel; slack_channel: expected a string, got number 7\n',
    ],
    [
      ['aws_pulse', '--local', '--input', '{"budget_usd":0}'],
      'error: Invalid input for aws_pulse: budget_usd: expected a number of US dollars greater than 0 and at most 10000, such as 0.05, got 0\n',
    ],
    [
      ['aws_pulse', '--local', '--input', '{"tenant":""}'],
      `error: Invalid input for aws_pulse: tenant (empty) is not a tenant id: ${TENANT_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--tenant', 'a b'],
      `error: --tenant "a b" is not a tenant id: ${TENANT_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--model-endpoint', 'notaurl'],
      'error: --model-endpoint "notaurl" is not an http(s) URL; give one such as http://127.0.0.1:8080 (etp model serve prints it)\n',
    ],
    [
      ['aws_pulse', '--local', '--model-endpoint', 'ftp://127.0.0.1:21'],
      'error: --model-endpoint "ftp://127.0.0.1:21" is not an http(s) URL; give one such as http://127.0.0.1:8080 (etp model serve prints it)\n',
    ],
    [
      ['aws_pulse', '--local', '--local-dir', ''],
      'error: --local-dir is empty; give <dir> (workspaces and run records of local runs (default: $ETP_LOCAL_DIR, else <tmp>/etp-local))\n',
    ],
    [
      ['aws_pulse', '--local', '--local-dir', __filename],
      `error: --local-dir ${__filename} cannot be used: ${__filename} is not a directory; give a directory you can write\n`,
    ],
    [
      ['aws_pulse', '--local', '--local-dir', path.join(__filename, 'runs')],
      `error: --local-dir ${path.join(__filename, 'runs')} cannot be used: ${__filename} is not a directory; give a directory you can write\n`,
    ],
    [
      ['aws_pulse', '--local', '--run-id', 'my run/1:x'],
      `error: --run-id "my run/1:x" is not a run id: ${RUN_RULE}\n`,
    ],
    [
      ['aws_pulse', '--local', '--input', `{"regions":${'['.repeat(40)}${']'.repeat(40)}}`],
      'error: Invalid input for aws_pulse: objects and arrays nest deeper than 32 levels\n',
    ],
    [
      ['aws_pulse', '--local', '--input', '"eu-west-1"'],
      `error: option '--input <json>' argument '"eu-west-1"' is invalid. Expected a JSON object such as '{"regions":["eu-west-1"]}', got a string. (see: etp scenario run --help)\n`,
    ],
  ])('exits 2 with one line, before any call, for %j', async (args, message) => {
    // Act
    const outcome = await etp(['scenario', 'run', ...args]);

    // Assess
    expect(outcome).toEqual({ code: 2, out: '', err: message });
    expect(ec2Mock.calls()).toHaveLength(0);
    expect(bedrockMock.calls()).toHaveLength(0);
  });
});

describe('etp scenario start', () => {
  beforeEach(() => {
    stsMock.on(GetCallerIdentityCommand).resolves({
      Account: '123456789012',
      Arn: 'arn:aws:iam::123456789012:user/operator',
      UserId: 'AIDAEXAMPLE',
    });
    sfnMock.on(StartExecutionCommand).callsFake(async (input: { stateMachineArn: string; name: string }) => ({
      executionArn: `${input.stateMachineArn.replace(':stateMachine:', ':execution:')}:${input.name}`,
      startDate: new Date('2026-01-01T00:00:00Z'),
    }));
  });

  it('starts the deployed state machine with the run id as execution name and the checked input', async () => {
    // Act
    const { code, out } = await etp([
      'scenario',
      'start',
      'aws_pulse',
      '--tenant',
      'acme',
      '--run-id',
      'run-42',
    ]);

    // Assess
    expect(code).toBe(0);
    expect(sfnMock.commandCalls(StartExecutionCommand).map((c) => c.args[0].input)).toEqual([
      {
        stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:ExternalToolsPlatform-aws_pulse',
        name: 'run-42',
        input: JSON.stringify({ tenant: 'acme', regions: 'all', slack_channel: '#aws-pulse' }),
      },
    ]);
    expect(out).toContain(
      'Started aws_pulse run run-42 for tenant acme: arn:aws:states:us-east-1:123456789012:execution:ExternalToolsPlatform-aws_pulse:run-42',
    );
  });

  it('refuses an input the scenario does not accept before calling AWS', async () => {
    // Act
    const outcome = await etp([
      'scenario',
      'start',
      'aws_pulse',
      '--tenant',
      'acme',
      '--input',
      '{"regions":5}',
    ]);

    // Assess
    expect(outcome.code).toBe(2);
    expect(outcome.err).toContain('regions: expected "all" or a list of 1-40 AWS region names');
    expect(sfnMock.calls()).toHaveLength(0);
    expect(stsMock.calls()).toHaveLength(0);
  });
});
