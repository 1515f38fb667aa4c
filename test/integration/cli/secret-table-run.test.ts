/**
 * `etp secrets` against a real DynamoDB API (dynalite on 127.0.0.1) and a local
 * scenario run that reads the tenant's secrets from that table: EC2 answered by a
 * local Query API endpoint (`AWS_ENDPOINT_URL_EC2`), Slack by the local Slack
 * server (`SLACK_API_URL`). Everything the tests start, they stop.
 */
// See test/unit/cli/run-etp.ts: commander is ESM-only; Node's own loader gives it to the CLI.
jest.mock('commander', () => require('node:module')._load(require.resolve('commander'), null, false));

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { logger } from '../../../functions/runtime/logger';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import {
  FAKE_AWS_CREDENTIALS,
  type ListeningServer,
  listenOnLoopback,
  type ReceivedRequest,
} from '../../helpers/loopback-server';
import { type LocalSlack, startSlackServer } from '../../helpers/slack-server';
import { etp } from '../../unit/cli/run-etp';

/**
 * DescribeInstances in the EC2 Query API's XML (EC2 API reference,
 * "DescribeInstances", response elements): one reservation, a running and a
 * stopped instance.
 */
const DESCRIBE_INSTANCES_XML = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>8f7724cf-496f-496e-8fe3-000000000001</requestId>
  <reservationSet>
    <item>
      <reservationId>r-0123456789abcdef0</reservationId>
      <ownerId>123456789012</ownerId>
      <groupSet/>
      <instancesSet>
        <item>
          <instanceId>i-0a1b2c3d4e5f60001</instanceId>
          <imageId>ami-0abcdef1234567890</imageId>
          <instanceState><code>16</code><name>running</name></instanceState>
          <instanceType>t3.micro</instanceType>
          <launchTime>2024-05-01T10:00:00.000Z</launchTime>
          <privateIpAddress>10.0.0.10</privateIpAddress>
          <tagSet><item><key>Name</key><value>web-1</value></item></tagSet>
          <platformDetails>Linux/UNIX</platformDetails>
        </item>
        <item>
          <instanceId>i-0a1b2c3d4e5f60002</instanceId>
          <imageId>ami-0abcdef1234567890</imageId>
          <instanceState><code>80</code><name>stopped</name></instanceState>
          <instanceType>m5.large</instanceType>
          <launchTime>2023-11-20T08:30:00.000Z</launchTime>
          <privateIpAddress>10.0.0.11</privateIpAddress>
          <platformDetails>Linux/UNIX</platformDetails>
        </item>
      </instancesSet>
    </item>
  </reservationSet>
</DescribeInstancesResponse>`;

const TABLE = 'etp-secret-references';

let dynamo: LocalDynamoDb;
let scenariosDir: string;
let slack: LocalSlack;
let ec2: ListeningServer;
const ec2Requests: ReceivedRequest[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  scenariosDir = mkdtempSync(path.join(tmpdir(), 'etp-table-run-'));
  dynamo = await startDynalite();
  await createSecretReferenceTable(dynamo.client, TABLE);
  slack = await startSlackServer();
  ec2 = await listenOnLoopback((request, response) => {
    ec2Requests.push(request);
    const action = new URLSearchParams(request.body).get('Action');
    if (action !== 'DescribeInstances') {
      response.writeHead(400, { 'content-type': 'text/xml' });
      response.end(
        `<Response><Errors><Error><Code>InvalidAction</Code><Message>${action}</Message></Error></Errors></Response>`,
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' });
    response.end(DESCRIBE_INSTANCES_XML);
  });
  Object.assign(process.env, {
    // The CLI's DynamoDB client reads the SDK's standard variables.
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_EC2: ec2.url,
    SLACK_API_URL: slack.apiUrl,
    // What the seeded references point at: acme's secrets, never in the table.
    ACME_AWS: JSON.stringify({
      access_key_id: 'AKIAI44QH8DHBEXAMPLE',
      secret_access_key: 'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
      region: 'eu-west-1',
    }),
    ACME_SLACK: JSON.stringify({ bot_token: slack.botToken }),
  });
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await Promise.all([dynamo.stop(), slack.stop(), ec2.stop()]);
  rmSync(scenariosDir, { recursive: true, force: true });
});

const tableEnv = { ETP_SECRET_REFS_TABLE: TABLE };

function seed(secretName: string, refValue: string) {
  return etp(
    [
      'secrets',
      'seed',
      '--tenant',
      'acme',
      '--secret-name',
      secretName,
      '--ref-kind',
      'env',
      '--ref-value',
      refValue,
    ],
    tableEnv,
  );
}

describe('etp secrets and a local run on the secret-reference table', () => {
  it('seeds references and lists them, never a value', async () => {
    // Act
    const seeded = [await seed('aws_default', 'ACME_AWS'), await seed('slack_default', 'ACME_SLACK')];
    const listed = await etp(['secrets', 'list', '--tenant', 'acme'], tableEnv);

    // Assess
    expect(seeded.map((outcome) => [outcome.code, outcome.out])).toEqual([
      [0, `Seeded acme/aws_default -> env ACME_AWS in table ${TABLE}\n`],
      [0, `Seeded acme/slack_default -> env ACME_SLACK in table ${TABLE}\n`],
    ]);
    const rows = listed.out
      .trimEnd()
      .split('\n')
      .slice(2)
      .map((line) => line.split(/ {2,}/).slice(0, 4));
    expect(listed.code).toBe(0);
    expect(rows).toEqual([
      ['acme', 'aws_default', 'env', 'ACME_AWS'],
      ['acme', 'slack_default', 'env', 'ACME_SLACK'],
    ]);
    expect(listed.out).not.toContain(slack.botToken);
    expect(listed.out).not.toContain('AKIAI44QH8DHBEXAMPLE');
  });

  it("runs a scenario with the tenant's secrets from the table: EC2 with its keys, Slack with its bot token", async () => {
    // Prepare: a plan-only scenario, tried from its own folder (ETP_SCENARIOS_DIR)
    writeFileSync(
      path.join(scenariosDir, 'inventory_post.yaml'),
      [
        'name: inventory_post',
        'description: An EC2 inventory posted to Slack.',
        'inputs:',
        '  tenant: { type: string, description: Tenant. }',
        '  regions: { type: regions, description: Regions., default: [eu-west-1] }',
        'levels:',
        '  - name: collect',
        '    intra_tools: [aws_ec2_inventory]',
        '    calls: [{ tool: aws_ec2_inventory, args: { regions: "{{input.regions}}" } }]',
        '  - name: report',
        '    intra_tools: [slack_post_message]',
        '    calls:',
        '      - tool: slack_post_message',
        '        args: { channel: C0AWSPULSE, text: "Inventory of {{run.tenant}} (run {{run.id}}): {{levels.collect.results.0.summary}}" }',
        '',
      ].join('\n'),
    );

    // Act
    const { code, out, err } = await etp(
      [
        'scenario',
        'run',
        'inventory_post',
        '--local',
        '--tenant',
        'acme',
        '--run-id',
        'it-run-1',
        '--table',
        TABLE,
      ],
      { ETP_SCENARIOS_DIR: scenariosDir, ETP_LOCAL_DIR: scenariosDir },
    );

    // Assess
    const lines = err.trimEnd().split('\n');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(
      new RegExp(`^Running inventory_post locally: run it-run-1, tenant acme, secrets from table ${TABLE}, `),
    );
    expect(lines).toContain('  collect: 1 call: 1 ok');
    expect(lines).toContain('  report: 1 call: 1 ok');
    expect(out.split('\n')[0]).toMatch(/^Run summary: .*: succeeded$/);
    expect(slack.messages).toEqual([
      expect.objectContaining({
        channel: 'C0AWSPULSE',
        text: 'Inventory of acme (run it-run-1): 2 EC2 instances in 1 region (1 running)',
      }),
    ]);
    // Signed with acme's keys from its secret, for the region it names.
    expect(ec2Requests).toHaveLength(1);
    expect(ec2Requests[0]?.headers.authorization).toContain('Credential=AKIAI44QH8DHBEXAMPLE/');
    expect(ec2Requests[0]?.headers.authorization).toContain('/eu-west-1/ec2/aws4_request');
  });

  it('deletes a reference, then reports the second delete as a failure', async () => {
    // Act
    const deleted = await etp(
      ['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'slack_default'],
      tableEnv,
    );
    const again = await etp(
      ['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'slack_default'],
      tableEnv,
    );
    const listed = await etp(['secrets', 'list', '--tenant', 'acme', '--table', TABLE]);

    // Assess
    expect(deleted).toEqual({ code: 0, out: `Deleted acme/slack_default from table ${TABLE}\n`, err: '' });
    expect(again).toEqual({
      code: 1,
      out: '',
      err: `error: tenant acme has no secret reference slack_default in table ${TABLE}\n`,
    });
    expect(
      listed.out
        .trimEnd()
        .split('\n')
        .slice(2)
        .map((line) => line.split(/ {2,}/)[1]),
    ).toEqual(['aws_default']);
  });
});
