/**
 * The real `bin/etp.js` in a child process (Node 24, tsx registered by the shim):
 * exit codes and messages as a shell sees them. Each spawn costs about a second,
 * so only what in-process tests cannot show is here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadModelScript, startScriptedModel } from '../../../bin/local/scripted-model';
import { runEtpProcess } from '../../helpers/etp-process';
import { shippedPlanTools } from '../../helpers/scenarios';

let localDir: string;

beforeEach(() => {
  localDir = mkdtempSync(path.join(tmpdir(), 'etp-bin-'));
});

afterEach(() => {
  rmSync(localDir, { recursive: true, force: true });
});

/** A run must end well within the minute `npm start` is allowed. */
const RUN_TIMEOUT_MS = 60_000;

/** Runs `etp <args>` in a child process with an isolated environment; kills it past the timeout. */
function etpBin(args: readonly string[]) {
  return runEtpProcess(args, { timeoutMs: RUN_TIMEOUT_MS });
}

describe('bin/etp.js', () => {
  it.each([
    [
      ['nope'],
      "error: unknown command 'nope'. Commands of etp: tools, secrets, scenario, run, model, mcp, console, dev\n",
    ],
    [
      ['tools', 'invoke', 'aws_ec2_inventory', '--args', '{}'],
      "error: required option '--tenant <tenant>' not specified; --tenant <tenant>: tenant whose secrets the tool resolves (see: etp tools invoke --help)\n",
    ],
    [
      ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', 'regions=eu-west-1'],
      "error: option '--args <json>' argument 'regions=eu-west-1' is invalid. Expected a JSON object of aws_ec2_inventory's " +
        'arguments: regions?, topN? (etp tools schema --format mcp --tools aws_ec2_inventory shows their schema) ' +
        `(Unexpected token 'r': not valid JSON). (see: etp tools invoke --help)\n`,
    ],
    [
      [
        'secrets',
        'seed',
        '--tenant',
        'acme',
        '--secret-name',
        'slack_default',
        '--ref-kind',
        'file',
        '--ref-value',
        'X',
      ],
      "error: option '--ref-kind <kind>' argument 'file' is invalid. Allowed choices are env, secrets_manager, inline. (see: etp secrets seed --help)\n",
    ],
    [
      ['scenario', 'run', 'aws_pulse', '--local', '--input', '["eu-west-1"]'],
      "error: option '--input <json>' argument '[\"eu-west-1\"]' is invalid. Expected a JSON object such as " +
        `'{"regions":["eu-west-1"]}', got an array. (see: etp scenario run --help)\n`,
    ],
    [
      ['tools', 'schema', '--format', 'mcp', '--tools', 'nope'],
      expect.stringMatching(/^error: Unknown tool "nope"\. Registered tools: [a-z0-9_, ]+\n$/),
    ],
  ])(
    'exits 2 with one line on stderr for %j',
    async (args, message) => {
      // Act
      const outcome = await etpBin(args);

      // Assess
      expect({ code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: message,
      });
    },
    RUN_TIMEOUT_MS,
  );

  it.each([
    [
      {},
      'error: Secret-reference table etp-secret-references (no region: set AWS_REGION, or a region in your AWS profile): Region is missing\n',
    ],
    [
      { AWS_REGION: 'eu-west-1' },
      'error: Secret-reference table etp-secret-references (region eu-west-1): Could not load credentials from any providers ' +
        '(set AWS credentials with AWS_PROFILE, aws sso login, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)\n',
    ],
  ])(
    'says what to set when the AWS SDK cannot start a request (%j), exit 1',
    async (env, message) => {
      // Act
      const outcome = await runEtpProcess(['secrets', 'list', '--table', 'etp-secret-references'], {
        env,
        timeoutMs: RUN_TIMEOUT_MS,
      });

      // Assess
      expect({ code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: message,
      });
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'exits 0, quietly, when the reader closes the pipe early (etp tools list --json | head -c 100)',
    async () => {
      // Act
      const outcome = await runEtpProcess(['tools', 'list', '--json'], {
        timeoutMs: RUN_TIMEOUT_MS,
        closeStdoutAfterBytes: 100,
      });

      // Assess
      expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
      expect(outcome.stdout.startsWith('[')).toBe(true);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'runs aws_pulse locally without AWS credentials, model or Slack secret: a clear error per level, in seconds, exit 1',
    async () => {
      // Act
      const outcome = await etpBin([
        'scenario',
        'run',
        'aws_pulse',
        '--local',
        '--run-id',
        'bin-run-1',
        '--local-dir',
        localDir,
      ]);

      // Assess: progress on stderr, the run summary alone on stdout.
      const lines = outcome.stderr.trimEnd().split('\n');
      expect(outcome.code).toBe(1);
      expect(lines[0]).toMatch(
        /^Running aws_pulse locally: run bin-run-1, tenant default, secrets from the embedded default store, model Bedrock/,
      );
      const audits = shippedPlanTools('aws_pulse', 'collect').length;
      expect(lines.filter((line) => /^ {4}aws_/.test(line))).toHaveLength(audits);
      expect(
        lines.filter((line) => /^ {4}aws_\w+ +✗ auth_failed: No usable AWS credentials/.test(line)),
      ).toHaveLength(audits);
      expect(lines).toContain(
        `  collect: ${audits} calls: 0 ok, ${audits} failed (auth_failed); findings: 0 (0 new, 0 unchanged, 0 resolved)`,
      );
      expect(lines.find((line) => line.startsWith('  analyze: '))).toMatch(
        /^ {2}analyze: model_error \(auth_failed: /,
      );
      expect(lines.find((line) => /^ {4}slack_post_message/.test(line))).toMatch(
        /✗ secret_not_found: Secret "slack_default"/,
      );
      expect(outcome.stdout.split('\n')[0]).toMatch(
        /^Run summary: .*: incomplete \(collect, analyze, report ended without a result\)$/,
      );
      expect(lines.at(-1)).toBe('Finished aws_pulse run bin-run-1: incomplete.');
      expect(outcome.wallMs).toBeLessThan(30_000);
    },
    RUN_TIMEOUT_MS + 5_000,
  );

  it(
    'runs a whole agent run offline against the shipped scripted model, logs (--verbose) on stderr, only JSON on stdout',
    async () => {
      // Prepare
      const model = await startScriptedModel(
        loadModelScript(path.join(__dirname, '../../../bin/local/scripts/aws-pulse.yaml')),
      );

      // Act
      const outcome = await etpBin([
        'scenario',
        'run',
        'aws_pulse',
        '--local',
        '--verbose',
        '--json',
        '--run-id',
        'bin-run-2',
        '--local-dir',
        localDir,
        '--model-endpoint',
        model.url,
      ]).finally(() => model.stop());

      // Assess: stdout is the output JSON, nothing else
      const output = JSON.parse(outcome.stdout);
      expect(output.levels.analyze).toMatchObject({ outcome: 'finished', turns: 2 });
      expect(
        output.levels.analyze.calls.map((call: { tool: string; code?: string }) => [call.tool, call.code]),
      ).toEqual([
        ['aws_cost_breakdown', 'tool_not_allowed'],
        ['finish', undefined],
      ]);
      expect(output.levels.analyze.summary).toMatch(/^\(scripted model\) AWS Pulse/);
      // …the scripted model's tokens priced at $0 in summary.json as in the output: one summary
      const file = JSON.parse(
        readFileSync(
          path.join(localDir, 'runs', 'default', 'aws_pulse', 'bin-run-2', 'summary.json'),
          'utf8',
        ),
      );
      expect(file).toEqual(output.summary);
      expect(output.summary.counts.modelInputTokens).toBeGreaterThan(0);
      expect(file.cost.totalUsd).toBe(file.cost.excludingModelUsd);
      expect(
        file.cost.parts.find((part: { part: string }) => part.part.startsWith('model tokens (')),
      ).toEqual(expect.objectContaining({ usd: 0, source: `local model at ${model.url}: not billed` }));
      expect(file.cost.notes).toContain(
        `The model answered from ${model.url}, not Bedrock: its tokens are priced at $0 (a deployed run would pay Bedrock's price per token).`,
      );
      // …progress and the Powertools logs on stderr
      expect(outcome.stderr).toContain(
        '▸ analyze (agent: us.anthropic.claude-3-5-haiku-20241022-v1:0, at most 6 turns)',
      );
      expect(outcome.stderr).toMatch(/"message": "agent turn"/);
      expect(outcome.code).toBe(1);
    },
    RUN_TIMEOUT_MS + 5_000,
  );
});
