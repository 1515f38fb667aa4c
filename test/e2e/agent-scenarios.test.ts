import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeAddressesCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { API_CALL_CASES, clientStubs } from '../../bench/api-call-cases';
import type { ScriptedResponse } from '../../bin/local/scripted-model';
import type { FindingsFile } from '../../functions/engine/findings';
import type { AgentLevelRecord, PlanLevelRecord } from '../../functions/engine/records';
import { ENGINE_PATHS, readJson } from '../../functions/engine/workspaces';
import { logger } from '../../functions/runtime/logger';
import { RUN_COMPLETED_DETAIL_SCHEMA } from '../../lib/scenarios/run-events';
import { describeInstancesResponder } from '../helpers/ec2-pages';
import { INCIDENT_ID, INCIDENT_REPO } from '../helpers/incident-world';
import {
  firstPrompt,
  RUN_EVENT_BUS,
  type ScenarioHarness,
  startScenarioHarness,
  toolResultsOf,
} from '../helpers/scenario-harness';
import { shippedPlanTools } from '../helpers/scenarios';
import { etp } from '../unit/cli/run-etp';

/**
 * Agent scenarios end to end: the CDK-synthesized state machines run by the
 * local ASL interpreter (test/helpers/scenario-harness.ts), every Task answered
 * by the real dispatcher, tool handlers and engine; the model a scripted
 * Converse server; AWS stubbed at the SDK with the API references' shapes.
 */

const { stubs, stubOf } = clientStubs();
const ec2 = stubOf(EC2Client);
const sfn = mockClient(SFNClient);

/** A small agent scenario: one inventory call, an agent allowed the inventory and ask_user, a Slack report. */
const E2E_AGENT = `
name: e2e_agent
description: A small agent scenario for the end-to-end tests.
inputs:
  tenant: { type: string, description: Tenant of the run., default: default }
  regions: { type: regions, description: Regions to read., default: [eu-west-1] }
  slack_channel: { type: string, description: Channel of the report., default: C0AWSPULSE }
levels:
  - name: collect
    intra_tools: [aws_ec2_inventory]
    calls:
      - tool: aws_ec2_inventory
        args: { regions: "{{input.regions}}", topN: 100 }
  - name: analyze
    model: anthropic.claude-3-5-haiku-20241022-v1:0
    prompt: "Tenant {{run.tenant}}. Inventory:\\n{{levels.collect.results}}"
    intra_tools: [aws_ec2_inventory]
    max_turns: 3
    max_tokens: 1000
    ask_user: { timeout_seconds: 600, slack_channel: "{{input.slack_channel}}" }
  - name: report
    intra_tools: [slack_post_message]
    calls:
      - tool: slack_post_message
        args: { channel: "{{input.slack_channel}}", text: "Report: {{levels.analyze.summary}}" }
`;

let harness: ScenarioHarness;

// Each test runs whole state machines (the pulse: every real audit handler of its collect level) through the local interpreter.
jest.setTimeout(60_000);

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  harness = await startScenarioHarness({ files: { 'e2e_agent.yaml': E2E_AGENT } });
}, 120_000);

afterAll(async () => {
  await harness.stop();
});

beforeEach(() => {
  for (const stub of stubs.values()) stub.reset();
  sfn.reset();
  ec2
    .on(DescribeInstancesCommand)
    .callsFake(describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 3 }, pageSize: 1000 }));
});

/** A model response calling one tool. */
const call = (name: string, input: unknown): ScriptedResponse => ({ tool_use: [{ name, input }] });
const finish = (summary: string, data?: Record<string, unknown>): ScriptedResponse =>
  call('finish', { summary, ...(data ? { data } : {}) });

describe('an agent level, end to end through the synthesized state machine', () => {
  it('corrects a call to a tool outside its level after the tool_not_allowed result', async () => {
    // Act
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-not-allowed',
      model: [
        call('slack_post_message', { channel: '#general', text: 'hello' }),
        finish('Three instances, all fine.'),
      ],
    });

    // Assess: the refusal came back as an error toolResult naming what is allowed
    const [refusal] = toolResultsOf(run.modelRequests[1]);
    expect(refusal?.status).toBe('error');
    expect(refusal?.json.error).toMatchObject({ code: 'tool_not_allowed', retryable: false });
    expect(String((refusal?.json.error as { message?: string } | undefined)?.message)).toContain(
      'Allowed: aws_ec2_inventory, edit_file, finish, list_files, read_file, write_file',
    );
    const analyze = run.output.levels.analyze as AgentLevelRecord;
    expect(analyze).toMatchObject({ outcome: 'finished', summary: 'Three instances, all fine.', turns: 2 });
    expect(analyze.calls.map((c) => [c.tool, c.ok, c.code])).toEqual([
      ['slack_post_message', false, 'tool_not_allowed'],
      ['finish', true, undefined],
    ]);
    expect(harness.slack.messages.at(-1)).toMatchObject({
      channel: 'C0AWSPULSE',
      text: 'Report: Three instances, all fine.',
    });
    expect(run.output.summary.outcome).toBe('succeeded');
    // The summary's count of state transitions is the interpreter's.
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
  });

  it('corrects invalid args after the invalid_args result, before any AWS call', async () => {
    // Act
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-invalid-args',
      model: [
        call('aws_ec2_inventory', { regions: 5 }),
        call('aws_ec2_inventory', { regions: ['eu-west-1'], topN: 2 }),
        finish('Re-read eu-west-1: 3 instances.'),
      ],
    });

    // Assess
    const [invalid] = toolResultsOf(run.modelRequests[1]);
    expect(invalid?.json.error).toMatchObject({ code: 'invalid_args' });
    expect(String((invalid?.json.error as { message?: string } | undefined)?.message)).toContain(
      'Expected "all" or a list of 1-40 AWS region names',
    );
    const [valid] = toolResultsOf(run.modelRequests[2]);
    expect(valid).toMatchObject({
      status: 'success',
      json: { ok: true, summary: '3 EC2 instances in 1 region (2 running)' },
    });
    // One DescribeInstances for the collect level, one for the corrected call: none for the invalid one.
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(2);
    expect(run.output.levels.analyze).toMatchObject({ outcome: 'finished', callCount: 3 });
  });

  it('ends the level at max_turns with a report in plain words, and the run goes on', async () => {
    // Act
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-max-turns',
      model: [1, 2, 3].map(() => call('aws_ec2_inventory', { regions: ['eu-west-1'] })),
    });

    // Assess
    const analyze = run.output.levels.analyze as AgentLevelRecord;
    expect(analyze).toMatchObject({ outcome: 'max_turns', turns: 3, callCount: 3 });
    expect(analyze.summary).toBe(
      'The analysis was stopped after 3 turns before it wrote its result. Step "collect": all 1 checks succeeded.',
    );
    expect(run.modelRequests).toHaveLength(3);
    expect(harness.slack.messages.at(-1)?.text).toBe(`Report: ${analyze.summary}`);
    expect(run.output.summary.outcome).toBe('incomplete');
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
    expect(run.output.summary.levels.map((level) => [level.name, level.hasResult])).toEqual([
      ['collect', true],
      ['analyze', false],
      ['report', true],
    ]);
  });

  it('retries a throttled tool when the model calls it again, and a throttled model with backoff', async () => {
    // Prepare: after the collect level's call, EC2 throttles every attempt until the model has seen the result.
    let calls = 0;
    let throttling = true;
    const responder = describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 3 }, pageSize: 1000 });
    ec2.on(DescribeInstancesCommand).callsFake(async (input, getClient) => {
      calls++;
      if (calls > 1 && throttling) {
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'RequestLimitExceeded',
          $metadata: { httpStatusCode: 503 },
        });
      }
      return responder(input, getClient);
    });
    const throttled: ScriptedResponse = {
      error: { status: 429, type: 'ThrottlingException', message: 'Too many requests' },
    };

    const script = [
      call('aws_ec2_inventory', { regions: ['eu-west-1'] }),
      call('aws_ec2_inventory', { regions: ['eu-west-1'] }),
      throttled,
      throttled,
      throttled,
      finish('Read after a retry: 3 instances.'),
    ];

    // Act: the model is throttled three times (the SDK's 3 attempts), then answers.
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-throttled',
      model: (_request, index) => {
        if (index === 1) throttling = false;
        return script[index] ?? finish('(script used up)');
      },
    });

    // Assess
    const [first] = toolResultsOf(run.modelRequests[1]);
    expect(first?.json.error).toMatchObject({ code: 'throttled', retryable: true });
    const [second] = toolResultsOf(run.modelRequests[2]);
    expect(second?.json.error).toBeUndefined();
    expect(second?.json).toMatchObject({ ok: true, summary: '3 EC2 instances in 1 region (2 running)' });
    expect(run.modelRequests).toHaveLength(6);
    expect(run.output.levels.analyze).toMatchObject({ outcome: 'finished', turns: 3 });
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
  });

  it('takes an oversized result through the claim-check: the state keeps a ref, the workspace the whole value', async () => {
    // Prepare: 3,000 instances; topN 100 makes the inventory far larger than the inline budget.
    ec2
      .on(DescribeInstancesCommand)
      .callsFake(describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 3000 }, pageSize: 1000 }));

    // Act
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-claim-check',
      model: [call('aws_ec2_inventory', { regions: ['eu-west-1'], topN: 100 }), finish('3,000 instances.')],
    });

    // Assess: what the model got
    const [result] = toolResultsOf(run.modelRequests[1]);
    const ref = result?.json.resultRef as { uri: string; bytes: number; sha256: string };
    expect(result?.json).toMatchObject({ ok: true });
    expect(ref.uri).toMatch(/results\/analyze\/0\.json$/);
    // The stand-in tells the model where the whole value is and how to read slices of it.
    expect(JSON.stringify(result?.json)).toContain('read_file');
    // …the whole value in the run's workspace, as referenced
    const stored = readFileSync(fileURLToPath(ref.uri));
    expect(stored.length).toBe(ref.bytes);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(ref.sha256);
    // Every instance listed, live or ended (the generator terminates one in ten).
    const { value } = JSON.parse(stored.toString('utf8'));
    expect(value.totalInstances + value.endedInstances).toBe(3000);
    expect(ref.bytes).toBeGreaterThan(harness.inlineResultBytes);
    // …and no state near the limit
    expect(run.largestStateBytes).toBeLessThan(200 * 1024);
    const collect = run.output.levels.collect as PlanLevelRecord;
    expect(collect.calls[0]?.resultRef?.uri).toMatch(/results\/collect\/0\.json$/);
  });

  it('asks the person, posts the question to Slack, and resumes with the answer of etp run answer', async () => {
    // Prepare: SendTaskSuccess hands the answer to the waiting state.
    const sent: { taskToken?: string; output?: string }[] = [];
    sfn.on(SendTaskSuccessCommand).callsFake(async (input: { taskToken?: string; output?: string }) => {
      sent.push(input);
      return {};
    });
    const posted = harness.slack.messages.length;

    // Act
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-ask-answered',
      model: [
        call('ask_user', { question: 'Is eu-west-1 production?' }),
        finish('eu-west-1 is production: 3 instances.'),
      ],
      answer: async (question) => {
        const listed = await etp(['run', 'questions', '--table', harness.records.tableName]);
        expect(listed.out).toContain('e2e-ask-answered');
        expect(listed.out).toContain('Is eu-west-1 production?');
        expect(listed.out).not.toContain(question.taskToken);
        const answered = await etp([
          'run',
          'answer',
          question.runId,
          '--text',
          'Yes, it is production.',
          '--table',
          harness.records.tableName,
        ]);
        expect(answered).toMatchObject({ code: 0, err: '' });
        expect(answered.out).not.toContain(question.taskToken);
        expect(sent[0]?.taskToken).toBe(question.taskToken);
        return JSON.parse(sent[0]?.output ?? '{}') as Record<string, unknown>;
      },
    });

    // Assess: the question reached Slack, the answer the model
    expect(harness.slack.messages[posted]?.text).toContain('Is eu-west-1 production?');
    expect(harness.slack.messages[posted]?.text).toContain('etp run answer e2e-ask-answered');
    const [answer] = toolResultsOf(run.modelRequests[1]);
    expect(answer?.json).toEqual({
      answered: true,
      answer: 'Yes, it is production.',
      by: expect.stringMatching(/^etp-cli:/),
    });
    expect(run.output.levels.analyze).toMatchObject({
      outcome: 'finished',
      usage: { askTurns: 1, askPosts: 1 },
    });
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
    const item = await harness.dynamo.client.send(
      new GetItemCommand({
        TableName: harness.records.tableName,
        Key: { tenant_id: { S: 'default' }, record_id: { S: 'question#e2e-ask-answered#analyze#1' } },
      }),
    );
    expect(item.Item?.status?.S).toBe('answered');
    // The token is gone once the question is closed.
    expect(item.Item?.task_token).toBeUndefined();
  });

  it('goes on with "no answer" when the question times out', async () => {
    // Act
    const run = await harness.run('e2e_agent', {
      runId: 'e2e-ask-timeout',
      model: [call('ask_user', { question: 'Anyone there?' }), finish('Went on without an answer.')],
    });

    // Assess
    const [answer] = toolResultsOf(run.modelRequests[1]);
    expect(answer?.json).toMatchObject({ answered: false, answer: 'no answer' });
    expect(String(answer?.json.reason)).toContain('Nobody answered in time');
    expect(run.output.levels.analyze).toMatchObject({
      outcome: 'finished',
      usage: { askTurns: 1, unanswered: 1 },
    });
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
    const item = await harness.dynamo.client.send(
      new GetItemCommand({
        TableName: harness.records.tableName,
        Key: { tenant_id: { S: 'default' }, record_id: { S: 'question#e2e-ask-timeout#analyze#1' } },
      }),
    );
    expect(item.Item?.status?.S).toBe('timed_out');
  });
});

describe('aws_pulse, end to end through the synthesized state machine', () => {
  /** Every AWS audit answered with the API references' shapes (bench/api-call-cases.ts). */
  function givenAccount(): void {
    for (const testCase of API_CALL_CASES) testCase.arrange(stubOf);
  }

  const report = (text: string) => finish(text, { top: [] });

  it('collects with every audit of its collect level, ranks the findings, writes the report and posts it to Slack', async () => {
    // Prepare
    givenAccount();
    const posted = harness.slack.messages.length;

    // Act
    const run = await harness.run('aws_pulse', {
      runId: 'pulse-1',
      input: { slack_channel: 'C0AWSPULSE' },
      model: [report('AWS Pulse: 11 findings, 3 high. First run: every finding is new.')],
    });

    // Assess: the collect level's audits, their findings tracked
    const collect = run.output.levels.collect as PlanLevelRecord;
    expect(collect.calls.map((c) => c.tool).sort()).toEqual(shippedPlanTools('aws_pulse', 'collect'));
    expect(collect.outcome).toBe('ok');
    expect(collect.findings).toMatchObject({ unchanged: 0, resolved: 0 });
    expect(collect.findings?.new).toBe(collect.findings?.total);
    expect(collect.findings?.total).toBeGreaterThan(5);
    // …the prompt listing every call and the ranked findings, all NEW on a first run
    const prompt = firstPrompt(run.modelRequests[0]);
    expect(prompt).toContain('aws_ec2_inventory (collect/0): ok');
    expect(prompt).toContain('this is the first run of this scenario for the tenant');
    expect(prompt).toContain('[NEW] HIGH');
    expect(prompt).not.toContain('[UNCHANGED]');
    // …the agent offered only the file tools
    expect(run.modelRequests[0]?.body.toolConfig?.tools?.map((tool) => tool.toolSpec?.name)).toEqual([
      'edit_file',
      'finish',
      'list_files',
      'read_file',
      'write_file',
    ]);
    // …the report in Slack
    expect(harness.slack.messages.slice(posted)).toEqual([
      expect.objectContaining({
        channel: 'C0AWSPULSE',
        text: 'AWS Pulse for tenant default (run pulse-1)\nAWS Pulse: 11 findings, 3 high. First run: every finding is new.',
      }),
    ]);
    // …and the summary: at most 3 Cost Explorer requests, every state well under 200 KiB
    expect(run.output.summary.counts.costExplorerRequests).toBe(3);
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
    expect(run.largestStateBytes).toBeLessThan(200 * 1024);
    expect(run.output.summary.outcome).toBe('succeeded');
  });

  it('says on the second run what is new, resolved and unchanged since the first', async () => {
    // Prepare: the first run sees an unassociated Elastic IP in us-east-1 …
    givenAccount();
    await harness.run('aws_pulse', { runId: 'pulse-a', model: [report('First.')] });
    const first = await readJson<FindingsFile>(
      harness.workspaces({ tenant: 'default', scenario: 'aws_pulse', runId: 'pulse-a' }),
      ENGINE_PATHS.findings('collect'),
    );
    const eip = first.findings.find((finding) => finding.check.includes('eip'));
    expect(eip).toBeDefined();
    // … which is released before the second run, while a new group opens RDP to the internet.
    givenAccount();
    ec2.on(DescribeAddressesCommand).resolves({ Addresses: [] });
    ec2.on(DescribeSecurityGroupsCommand).callsFake(async (_input, getClient) => {
      const region = await (getClient() as { config: { region: () => Promise<string> } }).config.region();
      const open = (port: number) => ({
        IpProtocol: 'tcp',
        FromPort: port,
        ToPort: port,
        IpRanges: [{ CidrIp: '0.0.0.0/0' }],
        Ipv6Ranges: [],
        PrefixListIds: [],
        UserIdGroupPairs: [],
      });
      const group = (id: string, name: string, permissions: object[]) => ({
        GroupId: id,
        GroupName: name,
        Description: name,
        OwnerId: '123456789012',
        VpcId: 'vpc-0123456789abcdef0',
        IpPermissions: permissions,
        IpPermissionsEgress: [],
      });
      return region === 'us-east-1' || region === 'eu-west-1'
        ? {
            SecurityGroups: [
              group('sg-0000000000000000b', 'bastion', [open(22)]),
              group('sg-0000000000000000c', 'web', [open(443)]),
              group('sg-0000000000000000d', 'windows', [open(3389)]),
            ],
          }
        : { SecurityGroups: [] };
    });

    // Act
    const run = await harness.run('aws_pulse', { runId: 'pulse-b', model: [report('Second.')] });

    // Assess
    const collect = run.output.levels.collect as PlanLevelRecord;
    expect(collect.findings).toMatchObject({ previousRunId: 'pulse-a' });
    expect(collect.findings?.resolved).toBeGreaterThanOrEqual(1);
    expect(collect.findings?.new).toBeGreaterThanOrEqual(1);
    expect(collect.findings?.unchanged).toBeGreaterThan(0);
    const prompt = firstPrompt(run.modelRequests[0]);
    expect(prompt).toContain('since the previous run (pulse-a)');
    expect(prompt).toContain(`[RESOLVED] ${eip?.severity.toUpperCase()} ${eip?.title}`);
    expect(prompt).toMatch(/\[NEW\] [A-Z]+ .*3389/);
    expect(prompt).toContain('[UNCHANGED]');
  });

  it('still reports in plain words when every collect call fails and the model cannot be reached', async () => {
    // Prepare: no stub answers, so every AWS call fails (no such account); the model answers with an access error.
    for (const stub of stubs.values()) {
      stub.onAnyCommand().rejects(
        Object.assign(new Error('The security token included in the request is invalid.'), {
          name: 'UnrecognizedClientException',
          $metadata: { httpStatusCode: 403 },
        }),
      );
    }
    const posted = harness.slack.messages.length;

    // Act
    const run = await harness.run('aws_pulse', {
      runId: 'pulse-down',
      model: [
        {
          error: {
            status: 403,
            type: 'AccessDeniedException',
            message: 'You do not have access to the model',
          },
        },
      ],
    });

    // Assess
    const text = String(harness.slack.messages[posted]?.text);
    expect(run.output.levels.collect).toMatchObject({ outcome: 'failed' });
    expect(run.output.levels.analyze).toMatchObject({
      outcome: 'model_error',
      error: { code: 'access_denied' },
    });
    expect(text).toContain(
      'The model could not be used because the account does not allow the platform to read this.',
    );
    expect(text).toContain(
      `Step "collect": none of the ${shippedPlanTools('aws_pulse', 'collect').length} checks could run, because the platform could not sign in (the credentials were missing, expired or rejected).`,
    );
    expect(text).not.toMatch(/auth_failed|access_denied/);
  });
});

describe('incident_response, end to end through the synthesized state machine', () => {
  it('gathers AWS, the PagerDuty incident and the GitHub changes, lets the agent re-read a region and ask the on-call engineer, then posts the triage and notes it on the incident once', async () => {
    // Prepare
    for (const testCase of API_CALL_CASES) testCase.arrange(stubOf);
    const posted = harness.slack.messages.length;

    // Act
    const run = await harness.run('incident_response', {
      runId: 'incident-1',
      input: {
        incident: 'Console login from an unknown IP',
        regions: ['us-east-1', 'eu-west-1'],
        slack_channel: 'C0123ABCD',
        pagerduty_incident: INCIDENT_ID,
        github_repo: INCIDENT_REPO,
        lookback_hours: 6,
      },
      model: [
        call('aws_security_groups_audit', { regions: ['eu-west-1'], topN: 5 }),
        call('ask_user', { question: 'Is the bastion in eu-west-1 still used?' }),
        finish(
          'SSH is open to the internet on the bastion in eu-west-1 and us-east-1; the on-call engineer says it is unused: close it.',
        ),
      ],
      answer: async () => 'No, it is unused.',
    });

    // Assess
    const prompt = firstPrompt(run.modelRequests[0]);
    expect(prompt).toContain('"Console login from an unknown IP"');
    expect(prompt).toContain('aws_cloudtrail_coverage (gather/0): ok');
    // The page, its on-call and the change before it reach the agent.
    expect(prompt).toContain(
      'pagerduty_incident (gather/3): ok — Incident 1234 (triggered, high urgency) on My Mail Service: The server is on fire.; 2 alerts, 2 log entries, 0 notes; on call: Tim Wright, Earline Greenholt',
    );
    expect(prompt).toContain(
      'github_merged_pulls (gather/5): ok — 1 pull request merged in octocat/Hello-World: #1347 Open port 22 on the bastion security group',
    );
    expect(prompt).toMatch(
      /github_recent_changes \(gather\/4\): ok — 1 commit and 1 deployment in octocat\/Hello-World; latest deployment to production at \S+: success/,
    );
    expect(run.modelRequests[0]?.body.toolConfig?.tools?.map((tool) => tool.toolSpec?.name)).toEqual([
      'aws_cloudtrail_coverage',
      'aws_security_groups_audit',
      'aws_iam_audit',
      'pagerduty_oncall',
      'edit_file',
      'finish',
      'list_files',
      'read_file',
      'write_file',
      'ask_user',
    ]);
    expect(toolResultsOf(run.modelRequests[2])[0]?.json).toMatchObject({
      answered: true,
      answer: 'No, it is unused.',
    });
    expect(run.output.levels.triage).toMatchObject({
      outcome: 'finished',
      callCount: 2,
      usage: { askTurns: 1, askPosts: 1 },
    });
    expect(harness.slack.messages.slice(posted).map((message) => message.text)).toEqual([
      expect.stringContaining('Is the bastion in eu-west-1 still used?'),
      'Incident triage for tenant default (run incident-1): Console login from an unknown IP\n' +
        'SSH is open to the internet on the bastion in eu-west-1 and us-east-1; the on-call engineer says it is unused: close it.',
    ]);
    // The triage as a note on the paging incident, exactly once, carrying the call's marker.
    const notes = harness.pagerduty.world.notes[INCIDENT_ID] ?? [];
    expect(notes.map((note) => note.content)).toEqual([
      expect.stringMatching(
        /^Triage by the External Tools Platform \(run incident-1\):\nSSH is open to the internet on the bastion .*close it\.\n\n\[etp-call:[0-9a-f]{32}\]$/,
      ),
    ]);
    expect(run.output.summary.outcome).toBe('succeeded');
    expect(run.output.summary.counts.stateTransitions).toBe(run.transitions);
    // …and the Run Completed event on the platform bus, with the schema's fields exactly
    expect(run.events).toEqual([
      {
        EventBusName: RUN_EVENT_BUS,
        Source: 'external-tools-platform',
        DetailType: 'Run Completed',
        Detail: {
          tenant: 'default',
          scenario: 'incident_response',
          runId: 'incident-1',
          executionArn: expect.stringContaining('incident-1'),
          status: 'SUCCEEDED',
          summary: expect.stringMatching(
            /^incident_response: 3 of 3 levels with their result; \d+ calls, \d+ ok; ~\$\d/,
          ),
          cost: { totalUsd: run.output.summary.cost.totalUsd },
        },
      },
    ]);
    const detail = (run.events[0] as { Detail: Record<string, unknown> }).Detail;
    expect(Object.keys(detail).sort()).toEqual([...RUN_COMPLETED_DETAIL_SCHEMA.required].sort());
  });
});
