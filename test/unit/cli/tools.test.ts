import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { toolCatalogMarkdown } from '../../../bin/cli/tool-docs';
import { logger } from '../../../functions/runtime/logger';
import { publicSpec } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';
import { ec2Error } from '../../helpers/aws-errors';
import { describeInstancesResponder } from '../../helpers/ec2-pages';
import { shippedScenarioNames } from '../../helpers/scenarios';
import { etp } from './run-etp';

const ec2Mock = mockClient(EC2Client);
/** `etp tools invoke aws_ec2_inventory` for the default tenant, up to its `--args` value. */
const INVOKE_EC2 = ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args'];

beforeAll(() => {
  logger.setLogLevel('SILENT');
});

beforeEach(() => {
  ec2Mock.reset();
  delete process.env.ETP_AWS_DEFAULT;
});

describe('etp tools list', () => {
  it('prints a table of every registered tool: name, side effects, tags, first sentence', async () => {
    // Act
    const { code, out, err } = await etp(['tools', 'list']);

    // Assess
    const rows = out
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/ {2,}/));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(rows[0]).toEqual(['NAME', 'SIDE EFFECTS', 'TAGS', 'DESCRIPTION']);
    expect(rows.slice(1).map((row) => row[0])).toEqual(toolCatalog.names());
    expect(rows).toContainEqual([
      'finish',
      'write',
      'workspace',
      'Ends the current level with a final answer: a short summary for people, and optional structured data.',
    ]);
    expect(rows.find((row) => row[0] === 'slack_post_message')?.slice(1, 3)).toEqual([
      'write',
      'slack, write',
    ]);
    // Long first sentences are cut so a row stays readable in a terminal.
    expect(Math.max(...rows.map((row) => (row[3] ?? '').length))).toBeLessThanOrEqual(120);
  });

  it("prints each tool's public spec with --json", async () => {
    // Act
    const { code, out } = await etp(['tools', 'list', '--json']);

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(toolCatalog.list().map(publicSpec));
  });
});

describe('etp tools docs', () => {
  it('prints the Markdown catalog generated from the registry', async () => {
    // Act
    const { code, out } = await etp(['tools', 'docs']);

    // Assess
    expect(code).toBe(0);
    expect(out).toBe(toolCatalogMarkdown(toolCatalog.list()));
  });

  it('writes it to a file with --write', async () => {
    // Prepare
    const dir = mkdtempSync(path.join(tmpdir(), 'etp-docs-'));
    const file = path.join(dir, 'tools.md');

    try {
      // Act
      const { code, out } = await etp(['tools', 'docs', '--write', file]);

      // Assess
      expect(code).toBe(0);
      expect(out).toBe(`Wrote ${file} (${toolCatalog.names().length} tools)\n`);
      expect(readFileSync(file, 'utf8')).toBe(toolCatalogMarkdown(toolCatalog.list()));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('etp tools invoke', () => {
  it('prints the ToolResult and exits 0 when the call succeeds', async () => {
    // Act
    const { code, out, err } = await etp([
      'tools',
      'invoke',
      'finish',
      '--tenant',
      'default',
      '--args',
      '{"summary":"all good"}',
    ]);

    // Assess
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({
      ok: true,
      tool: 'finish',
      callId: 'cli/0',
      // Kept in the call's scratch workspace too (a call without a scenario).
      value: { finished: true, summary: 'all good', file: 'levels/cli/finish.json' },
      truncated: false,
      resultRef: null,
      durationMs: expect.any(Number),
      summary: 'all good',
    });
  });

  it('runs an AWS tool in process with the default credential chain when the tenant has no aws secret', async () => {
    // Prepare
    ec2Mock
      .on(DescribeInstancesCommand)
      .callsFake(describeInstancesResponder({ instancesByRegion: { 'eu-west-1': 3 }, pageSize: 1000 }));

    // Act
    const { code, out } = await etp([...INVOKE_EC2, '{"regions":["eu-west-1"],"topN":2}']);

    // Assess
    const result = JSON.parse(out);
    expect(code).toBe(0);
    expect(result.summary).toBe('3 EC2 instances in 1 region (2 running)');
    expect(result.value.instances).toHaveLength(2);
    expect(ec2Mock.commandCalls(DescribeInstancesCommand)).toHaveLength(1);
  });

  it('refuses an aws secret variable set but empty instead of falling back to the default credential chain', async () => {
    // Prepare
    process.env.ETP_AWS_DEFAULT = '';

    // Act
    const { code, out } = await etp([...INVOKE_EC2, '{"regions":["eu-west-1"]}']);

    // Assess
    const result = JSON.parse(out);
    expect(code).toBe(1);
    expect(result.error).toMatchObject({
      code: 'secret_invalid',
      message: expect.stringContaining('environment variable ETP_AWS_DEFAULT, which is set but empty'),
    });
    expect(ec2Mock.commandCalls(DescribeInstancesCommand)).toHaveLength(0);
  });

  it('exits 2 naming each bad argument and what it accepts when the args break the schema, before any remote call', async () => {
    // Act
    const outcome = await etp([...INVOKE_EC2, '{"regions":"eu-west-1","topN":0}']);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err: 'error: Invalid arguments for aws_ec2_inventory: regions: Expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"] (got "eu-west-1"); topN: Too small: expected number to be >=1 (got 0). Accepted: How many items to list in full (1-100, default 20)\n',
    });
    expect(ec2Mock.calls()).toHaveLength(0);
  });

  // Made up, in the shape of a Slack bot token: what a person pastes by mistake.
  const pastedToken = ['xoxb', '123456789012', '1234567890123', 'abcdefghijklmnopqrstuvwx'].join('-');

  it.each([
    [
      'an id the schema refuses',
      ['snapshot_stats', '--tenant', 'default', '--args', `{"id":"s3_inventory:${pastedToken}/daily/T1"}`],
    ],
    ['--args that is not JSON', ['snapshot_stats', '--tenant', 'default', '--args', pastedToken]],
  ])(
    'masks a credential the usage error echoes (%s), as the dispatcher masks results',
    async (_case, argv) => {
      // Act
      const outcome = await etp(['tools', 'invoke', ...argv]);

      // Assess
      expect(outcome.code).toBe(2);
      expect(outcome.out).toBe('');
      expect(outcome.err).toContain('<redacted>');
      expect(outcome.err).not.toContain('abcdefghijklmnopqrstuvwx');
    },
  );

  it('exits 2 with one short line for args nested 3,000 levels deep', async () => {
    // Prepare
    const data = `${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}`;

    // Act
    const outcome = await etp([
      'tools',
      'invoke',
      'finish',
      '--tenant',
      'default',
      '--args',
      `{"summary":"done","data":${data}}`,
    ]);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err: 'error: Invalid arguments for finish: data: Too deeply nested: objects and arrays may nest at most 32 levels deep\n',
    });
  });

  it("exits 2 naming what the level allows when the tool is not in a scenario level's intra_tools (--scenario, --level)", async () => {
    // Act
    const outcome = await etp([
      ...INVOKE_EC2,
      '{"regions":["eu-west-1"]}',
      '--scenario',
      'aws_pulse',
      '--level',
      'report',
    ]);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err: 'error: Tool "aws_ec2_inventory" is not allowed at level "report" of scenario "aws_pulse". Allowed: slack_post_message, edit_file, finish, list_files, read_file, write_file\n',
    });
    expect(ec2Mock.calls()).toHaveLength(0);
  });

  it('exits 2 with unknown_tool listing the registered names', async () => {
    // Act
    const outcome = await etp(['tools', 'invoke', 'aws_nope', '--tenant', 'default']);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err: `error: Unknown tool "aws_nope". Registered tools: ${toolCatalog.names().join(', ')}\n`,
    });
  });

  it('exits 1 with the ok:false result when the tool itself fails once called', async () => {
    // Prepare: the call passes every check; AWS refuses it.
    ec2Mock.on(DescribeInstancesCommand).rejects(
      ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', {
        httpStatusCode: 403,
      }),
    );

    // Act
    const { code, out, err } = await etp([...INVOKE_EC2, '{"regions":["eu-west-1"]}']);

    // Assess
    expect({ code, err }).toEqual({ code: 1, err: '' });
    expect(JSON.parse(out)).toMatchObject({
      ok: false,
      tool: 'aws_ec2_inventory',
      error: { code: 'access_denied' },
    });
  });

  it.each([
    [
      ['--scenario', 'aws_pulse'],
      'error: --scenario and --level go together: pass both to check the level whitelist, or neither\n',
    ],
    [
      ['--args', '[1]'],
      // What `finish` itself accepts, from its schema (an optional argument with ?).
      `error: option '--args <json>' argument '[1]' is invalid. Expected a JSON object of finish's arguments: summary, data? (etp tools schema --format mcp --tools finish shows their schema), got an array. (see: etp tools invoke --help)\n`,
    ],
    [
      ['--scenario', 'nope', '--level', 'collect'],
      `error: Unknown scenario "nope". Known scenarios: ${shippedScenarioNames().join(', ')}\n`,
    ],
    [
      ['--scenario', 'aws_pulse', '--level', 'analysis'],
      'error: Scenario "aws_pulse" has no level "analysis". Levels: collect, analyze, report\n',
    ],
    [
      ['--tenant', 'a/b'],
      'error: --tenant "a/b" is not a tenant id: 1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1)\n',
    ],
    [['--tenant', ''], 'error: --tenant is empty; give <tenant> (tenant whose secrets the tool resolves)\n'],
    [
      ['--tenant', 'default', '--tenant', 'acme'],
      'error: --tenant was given more than once; give it once (--tenant <tenant>)\n',
    ],
    [
      ['--run-id', 'my run/1:x'],
      'error: --run-id "my run/1:x" is not a run id: 1-80 letters, digits, - or _ (a Step Functions execution name, e.g. run-2025-01-02)\n',
    ],
  ])('exits 2 with one line for the usage error %j', async (options, message) => {
    // Act: the tenant of the case, else a valid one.
    const tenant = options.includes('--tenant') ? [] : ['--tenant', 'default'];
    const outcome = await etp(['tools', 'invoke', 'finish', ...tenant, ...options]);

    // Assess
    expect(outcome).toEqual({ code: 2, out: '', err: message });
  });

  it("says what --args of a tool of another family accepts, from that tool's schema (no AWS example for GitHub)", async () => {
    // Act
    const outcome = await etp([
      'tools',
      'invoke',
      'github_org_facts',
      '--tenant',
      'default',
      '--args',
      '"acme"',
    ]);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err:
        // org is required, recent_repos optional (functions/tools/github/org-facts.meta.ts).
        "error: option '--args <json>' argument '\"acme\"' is invalid. Expected a JSON object of github_org_facts's arguments: " +
        'org, recent_repos? (etp tools schema --format mcp --tools github_org_facts shows their schema), got a string. (see: etp tools invoke --help)\n',
    });
  });
});
