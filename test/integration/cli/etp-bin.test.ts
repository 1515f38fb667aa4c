/**
 * The real `bin/etp.js` in a child process (Node 24, tsx registered by the shim):
 * exit codes and messages as a shell sees them. Each spawn costs about a second,
 * so only what in-process tests cannot show is here.
 */
import { runEtpProcess } from '../../helpers/etp-process';

/** A run must end well within the minute `npm start` is allowed. */
const RUN_TIMEOUT_MS = 60_000;

/** Runs `etp <args>` in a child process with an isolated environment; kills it past the timeout. */
function etpBin(args: readonly string[]) {
  return runEtpProcess(args, { timeoutMs: RUN_TIMEOUT_MS });
}

describe('bin/etp.js', () => {
  it.each([
    [['nope'], "error: unknown command 'nope'. Commands of etp: tools, secrets, scenario, mcp\n"],
    [
      ['tools', 'invoke', 'aws_ec2_inventory', '--args', '{}'],
      "error: required option '--tenant <tenant>' not specified (see: etp tools invoke --help)\n",
    ],
    [
      ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', 'regions=eu-west-1'],
      "error: option '--args <json>' argument 'regions=eu-west-1' is invalid. Expected a JSON object such as " +
        `'{"regions":["eu-west-1"]}' (Unexpected token 'r', "regions=eu-west-1" is not valid JSON). (see: etp tools invoke --help)\n`,
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
      "error: option '--ref-kind <kind>' argument 'file' is invalid. Allowed choices are env, secrets_manager. (see: etp secrets seed --help)\n",
    ],
    [
      ['scenario', 'run', 'aws_pulse', '--local', '--input', '["eu-west-1"]'],
      "error: option '--input <json>' argument '[\"eu-west-1\"]' is invalid. Expected a JSON object such as " +
        `'{"regions":["eu-west-1"]}', got an array. (see: etp scenario run --help)\n`,
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

  it(
    'runs aws_pulse locally without AWS credentials or a Slack secret: two per-tool errors, exit 0, no stack trace',
    async () => {
      // Act
      const outcome = await etpBin(['scenario', 'run', 'aws_pulse', '--local', '--run-id', 'bin-run-1']);

      // Assess
      const lines = outcome.stdout.trimEnd().split('\n');
      expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
      expect(lines).toHaveLength(4);
      expect(lines[0]).toBe(
        'Running aws_pulse locally: run bin-run-1, tenant default, secrets from the embedded default store',
      );
      expect(lines[1]).toMatch(
        /^collect {2}aws_ec2_inventory {2}… ✗ auth_failed: .*credentials.* \(\d+ ms\)$/,
      );
      expect(lines[2]).toMatch(
        /^report {3}slack_post_message … ✗ secret_not_found: Secret "slack_default" of tenant "default" points at environment variable ETP_SLACK_DEFAULT, which is not set \(\d+ ms\)$/,
      );
      expect(lines[3]).toMatch(
        /^Completed aws_pulse run bin-run-1 in \d+(\.\d)? m?s: 0 ok, 2 failed \(auth_failed, secret_not_found\)\.$/,
      );
      expect(outcome.wallMs).toBeLessThan(RUN_TIMEOUT_MS);
    },
    RUN_TIMEOUT_MS + 5_000,
  );
});
