import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command, Option } from 'commander';
import { COMMANDS } from '../../bin/cli/commands';
import { EXIT_FAILED, EXIT_USAGE } from '../../bin/cli/io';
import { createProgram } from '../../bin/cli/program';
import { etp } from '../unit/cli/run-etp';

/**
 * Bad command lines a newcomer types, each with the exact exit code and the
 * words its one-line message must contain; none reaches the network (no AWS
 * region or credentials would let it), none prints a stack trace. Part of the
 * table is written by hand, the rest derived from the commands themselves: every
 * option that takes a value, given empty or twice, and every command given an
 * option it does not have.
 */
type Case = readonly [argv: readonly string[], code: number, words: readonly string[]];

const dir = mkdtempSync(path.join(os.tmpdir(), 'etp-bad-inputs-'));
const EMPTY_SCRIPT = path.join(dir, 'empty.yaml');
writeFileSync(EMPTY_SCRIPT, '[]\n');
const NOT_A_LIST = path.join(dir, 'not-a-list.yaml');
writeFileSync(NOT_A_LIST, 'text: hello\n');
const NOT_JSON = path.join(dir, 'answers.yaml');
writeFileSync(NOT_JSON, '- yes\n');
const SCRIPT = 'bin/local/scripts/aws-pulse.yaml';
const TENANT_RULE = 'is not a tenant id: 1-128 letters, digits, _ . or -';
const RUN_ID_RULE = 'is not a run id: 1-80 letters, digits, - or _';
const SCENARIOS = 'Known scenarios: aws_pulse';

const WRITTEN: readonly Case[] = [
  [['nope'], EXIT_USAGE, ["unknown command 'nope'", 'Commands of etp: tools, secrets']],
  [['tool', 'list'], EXIT_USAGE, ["unknown command 'tool'", 'Did you mean tools?']],
  [['--nope'], EXIT_USAGE, ["unknown option '--nope'"]],
  [['tools'], EXIT_USAGE, ['Usage: etp tools']],
  [
    ['dev', 'new-tool'],
    EXIT_USAGE,
    [
      "error: missing required argument 'name'; <name> is the new tool's snake_case name: an aws tool is aws_<what>",
    ],
  ],
  [
    ['dev', 'new-tool', 'aws_x', '--kind'],
    EXIT_USAGE,
    ["option '--kind <kind>' argument missing; --kind <kind> is one of aws, rest, file"],
  ],
  [
    ['dev', 'new-tool', `aws_${'a'.repeat(39)}`, '--kind', 'aws'],
    EXIT_USAGE,
    [
      'has 43 characters: a --kind aws tool runs in its own Lambda function, named ExternalToolsPlatform-<tool>, and a function name is at most 64 characters, so its name is at most 42',
    ],
  ],
  [
    ['dev', 'new-tool', 'read_file', '--kind', 'file'],
    EXIT_USAGE,
    ['error: read_file is already a tool (functions/tools/catalog.ts registers files/read-file)'],
  ],
  [
    ['dev', 'new-tool', 'aws_lambda_inventory'],
    EXIT_USAGE,
    ["error: required option '--kind <kind>' not specified (aws, rest, file)"],
  ],
  [
    ['dev', 'new-tool', 'aws_ec2_inventory', '--kind', 'aws'],
    EXIT_USAGE,
    ['error: aws_ec2_inventory is already a tool (functions/tools/catalog.ts registers aws/ec2-inventory)'],
  ],
  [
    ['tools', 'lst'],
    EXIT_USAGE,
    ["unknown command 'lst'", 'Did you mean list?', 'list, docs, schema, invoke'],
  ],
  [['tools', 'list', '--jsn'], EXIT_USAGE, ["unknown option '--jsn'", 'Did you mean --json?']],
  [['tools', 'list', 'extra'], EXIT_USAGE, ['too many arguments', 'etp tools list --help']],
  [
    ['tools', 'docs', '--write', '/proc/no-such-dir/tools.md'],
    EXIT_USAGE,
    ['--write /proc/no-such-dir/tools.md', 'cannot write it'],
  ],
  [['tools', 'schema'], EXIT_USAGE, ["required option '--format <format>' not specified"]],
  [
    ['tools', 'schema', '--format', 'xml'],
    EXIT_USAGE,
    ["argument 'xml' is invalid", 'Allowed choices are mcp, bedrock-agent'],
  ],
  [
    ['tools', 'schema', '--format', 'mcp', '--tools', 'aws_ec2_inventorz'],
    EXIT_USAGE,
    ['Unknown tool "aws_ec2_inventorz"', 'Registered tools: '],
  ],
  [
    ['tools', 'schema', '--format', 'mcp', '--tools', ','],
    EXIT_USAGE,
    ['--tools is empty', 'tool names separated by commas'],
  ],
  [
    ['tools', 'schema', '--format', 'mcp', '--scenario', 'aws_pulse'],
    EXIT_USAGE,
    ['--scenario and --level go together'],
  ],
  [
    ['tools', 'schema', '--format', 'mcp', '--scenario', 'aws_pulse', '--level', 'nope'],
    EXIT_USAGE,
    ['has no level "nope"', 'Levels: collect, analyze, report'],
  ],
  [
    [
      'tools',
      'schema',
      '--format',
      'mcp',
      '--tools',
      'finish',
      '--scenario',
      'aws_pulse',
      '--level',
      'collect',
    ],
    EXIT_USAGE,
    ['with --tools or with --scenario/--level, not both'],
  ],
  [
    ['tools', 'schema', '--format', 'bedrock-agent'],
    EXIT_USAGE,
    ['at most 11 functions', 'Select fewer with --tools'],
  ],
  [['tools', 'invoke'], EXIT_USAGE, ["required option '--tenant <tenant>' not specified"]],
  [['tools', 'invoke', '', '--tenant', 'default'], EXIT_USAGE, ['<tool> is empty', 'etp tools list']],
  [['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'a b'], EXIT_USAGE, ['--tenant "a b"', TENANT_RULE]],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', '{'],
    EXIT_USAGE,
    ["Expected a JSON object of aws_ec2_inventory's arguments: regions?, topN?"],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', 'null'],
    EXIT_USAGE,
    ['got null'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', '"x"'],
    EXIT_USAGE,
    ['got a string'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', '[1]'],
    EXIT_USAGE,
    ['got an array'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--scenario', 'aws_pulse'],
    EXIT_USAGE,
    ['--scenario and --level go together'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--level', 'collect'],
    EXIT_USAGE,
    ['--scenario and --level go together'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--run-id', 'a/b'],
    EXIT_USAGE,
    ['--run-id "a/b"', RUN_ID_RULE],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--scenario', 'nope', '--level', 'x'],
    EXIT_USAGE,
    ['Unknown scenario "nope"', SCENARIOS],
  ],
  [
    [
      'tools',
      'invoke',
      'aws_ec2_inventory',
      '--tenant',
      'default',
      '--scenario',
      'aws_pulse',
      '--level',
      'analyse',
    ],
    EXIT_USAGE,
    ['has no level "analyse"'],
  ],
  [
    ['tools', 'invoke', 'aws_nope', '--tenant', 'default'],
    EXIT_USAGE,
    ['Unknown tool "aws_nope". Registered tools: ', 'aws_ec2_inventory'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', '{"regions":"mars"}'],
    EXIT_USAGE,
    ['Invalid arguments for aws_ec2_inventory', 'regions'],
  ],
  [
    ['tools', 'invoke', 'aws_ec2_inventory', '--tenant', 'default', '--args', '{"extra":1}'],
    EXIT_USAGE,
    ['Invalid arguments for aws_ec2_inventory', 'extra'],
  ],
  [
    [
      'tools',
      'invoke',
      'aws_ec2_inventory',
      '--tenant',
      'default',
      '--scenario',
      'aws_pulse',
      '--level',
      'report',
    ],
    EXIT_USAGE,
    ['Tool "aws_ec2_inventory" is not allowed at level "report" of scenario "aws_pulse". Allowed: '],
  ],
  [['secrets'], EXIT_USAGE, ['Usage: etp secrets']],
  [['secrets', 'seed'], EXIT_USAGE, ["required option '--tenant <tenant>' not specified"]],
  [
    ['secrets', 'seed', '--tenant', 'acme', '--secret-name', 'bad name', '--ref-kind', 'env', '--table', 't'],
    EXIT_USAGE,
    ['--secret-name "bad name"', 'is not a secret name'],
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
      'vault',
      '--ref-value',
      'x',
      '--table',
      't',
    ],
    EXIT_USAGE,
    ["argument 'vault' is invalid", 'Allowed choices are env, secrets_manager'],
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
      'env',
      '--ref-value',
      'X',
    ],
    EXIT_USAGE,
    ['needs the secret-reference table', '--table <name>', 'ETP_SECRET_REFS_TABLE'],
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
      'secrets_manager',
      '--ref-value',
      'not-an-arn',
      '--table',
      't',
    ],
    EXIT_USAGE,
    ['must be a secret ARN', 'arn:aws:secretsmanager:<region>'],
  ],
  [['secrets', 'list', '--tenant', 'a/b'], EXIT_USAGE, ['--tenant "a/b"', TENANT_RULE]],
  [
    ['secrets', 'delete', '--tenant', 'acme'],
    EXIT_USAGE,
    ["required option '--secret-name <name>' not specified"],
  ],
  [
    ['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'slack_default'],
    EXIT_USAGE,
    ['needs the secret-reference table'],
  ],
  [
    ['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'a b', '--table', 't'],
    EXIT_USAGE,
    ['--secret-name "a b"', 'is not a secret name'],
  ],
  [['scenario'], EXIT_USAGE, ['Usage: etp scenario']],
  [['scenario', 'validate'], EXIT_USAGE, ["missing required argument 'name|file'"]],
  [['scenario', 'validate', 'nope'], EXIT_USAGE, ['Unknown scenario "nope"', SCENARIOS]],
  [
    ['scenario', 'validate', '/nonexistent/file.yaml'],
    EXIT_USAGE,
    ['/nonexistent/file.yaml: no such file', 'a scenario name or the path of a YAML file'],
  ],
  [['scenario', 'list', 'extra'], EXIT_USAGE, ['too many arguments']],
  [['scenario', 'run'], EXIT_USAGE, ["missing required argument 'name'"]],
  [
    ['scenario', 'run', 'aws_pulse'],
    EXIT_USAGE,
    ['Only local runs start from here: add --local', 'etp scenario start aws_pulse'],
  ],
  [['scenario', 'run', 'nope', '--local'], EXIT_USAGE, ['Unknown scenario "nope"']],
  [['scenario', 'run', 'aws_pulse', '--local', '--input', '[]'], EXIT_USAGE, ['got an array']],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--input', '{"regions":5}'],
    EXIT_USAGE,
    ['Invalid input for aws_pulse: regions', 'got number 5'],
  ],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--input', '{"nope":1}'],
    EXIT_USAGE,
    ['nope: not declared by aws_pulse', 'Declared inputs: tenant, budget_usd, regions, slack_channel'],
  ],
  [['scenario', 'run', 'aws_pulse', '--local', '--tenant', 'a/b'], EXIT_USAGE, [TENANT_RULE]],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--run-id', 'x y'],
    EXIT_USAGE,
    ['--run-id "x y"', RUN_ID_RULE],
  ],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--model-endpoint', 'ftp://x'],
    EXIT_USAGE,
    ['is not an http(s) URL', 'etp model serve prints it'],
  ],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--model-endpoint', 'not a url'],
    EXIT_USAGE,
    ['is not an http(s) URL'],
  ],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--answers', '/nonexistent/answers.yaml'],
    EXIT_USAGE,
    [
      '--answers /nonexistent/answers.yaml: cannot be read: no such file (ENOENT); give a JSON array of answers',
    ],
  ],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--answers', NOT_JSON],
    EXIT_USAGE,
    [`--answers ${NOT_JSON}: not JSON (`, 'expected a JSON array of answers'],
  ],
  [
    ['scenario', 'run', 'aws_pulse', '--local', '--local-dir', '/proc/etp'],
    EXIT_USAGE,
    ['--local-dir /proc/etp cannot be created', 'give a directory you can write'],
  ],
  [['scenario', 'start', 'aws_pulse'], EXIT_USAGE, ["required option '--tenant <tenant>' not specified"]],
  [['scenario', 'start', 'nope', '--tenant', 'acme'], EXIT_USAGE, ['Unknown scenario "nope"']],
  [['scenario', 'start', 'aws_pulse', '--tenant', 'acme', '--run-id', 'x y'], EXIT_USAGE, [RUN_ID_RULE]],
  [['scenario', 'start', 'aws_pulse', '--tenant', 'a/b'], EXIT_USAGE, [TENANT_RULE]],
  [
    ['scenario', 'start', 'aws_pulse', '--tenant', 'acme', '--input', '{"regions":5}'],
    EXIT_USAGE,
    ['Invalid input for aws_pulse: regions'],
  ],
  [
    ['scenario', 'start', 'aws_pulse', '--tenant', 'acme', '--state-machine-arn', 'not-an-arn'],
    EXIT_USAGE,
    ['"not-an-arn" is not a state machine ARN', 'arn:aws:states:<region>:<account>:stateMachine:<name>'],
  ],
  [
    [
      'scenario',
      'start',
      'aws_pulse',
      '--tenant',
      'acme',
      '--state-machine-arn',
      'arn:aws:states:eu-west-1:123:stateMachine:x',
    ],
    EXIT_USAGE,
    ['is not a state machine ARN'],
  ],
  [
    ['scenario', 'start', 'aws_pulse', '--tenant', 'acme', '--stack', '1x'],
    EXIT_USAGE,
    ['"1x" is not a CloudFormation stack name'],
  ],
  [['run'], EXIT_USAGE, ['Usage: etp run']],
  [['run', 'answer'], EXIT_USAGE, ["required option '--text <text>' not specified"]],
  [['run', 'answer', 'x y', '--text', 'hi'], EXIT_USAGE, ['runId "x y"', RUN_ID_RULE]],
  [['run', 'questions', '--tenant', 'a/b'], EXIT_USAGE, [TENANT_RULE]],
  [['model'], EXIT_USAGE, ['Usage: etp model']],
  [['model', 'serve'], EXIT_USAGE, ["required option '--script <file>' not specified"]],
  [
    ['model', 'serve', '--script', '/nonexistent.yaml'],
    EXIT_USAGE,
    ['--script /nonexistent.yaml: cannot be read: no such file (ENOENT); give a YAML or JSON list'],
  ],
  [
    ['model', 'serve', '--script', dir],
    EXIT_USAGE,
    [`--script ${dir}: cannot be read: it is a directory, not a file (EISDIR)`],
  ],
  [
    ['dev', 'new-tool', 'github_x_y', '--kind', 'rest', '--root', '/nonexistent'],
    EXIT_USAGE,
    [
      '--root /nonexistent/functions/tools/catalog.ts: cannot be read: no such file (ENOENT); give a checkout of this repository',
    ],
  ],
  [
    ['model', 'serve', '--script', EMPTY_SCRIPT],
    EXIT_USAGE,
    ['the list of responses is empty', 'give at least one'],
  ],
  [['model', 'serve', '--script', NOT_A_LIST], EXIT_USAGE, ['expected a list of responses']],
  [
    ['model', 'serve', '--script', SCRIPT, '--port', '70000'],
    EXIT_USAGE,
    ['--port 70000: expected a port number, 0-65535'],
  ],
  [
    ['model', 'serve', '--script', SCRIPT, '--port', 'abc'],
    EXIT_USAGE,
    ['--port abc: expected a port number'],
  ],
  [
    ['model', 'serve', '--script', SCRIPT, '--latency-ms', 'abc'],
    EXIT_USAGE,
    ["option '--latency-ms <ms>' argument 'abc' is invalid. Expected whole milliseconds, 0-600000."],
  ],
  // One line naming the option and the value once (commander's prefix), then what is accepted.
  [
    ['model', 'serve', '--script', SCRIPT, '--latency-ms', '-1'],
    EXIT_USAGE,
    [
      "error: option '--latency-ms <ms>' argument '-1' is invalid. Expected whole milliseconds, 0-600000. (see: etp model serve --help)\n",
    ],
  ],
  [
    ['model', 'serve', '--script', SCRIPT, '--latency-ms', '1.5'],
    EXIT_USAGE,
    ['Expected whole milliseconds'],
  ],
  [['mcp'], EXIT_USAGE, ['etp mcp needs a tenant', '--tenant <tenant>', 'ETP_TENANT']],
  [['mcp', '--tenant', 'a/b'], EXIT_USAGE, [TENANT_RULE]],
  [['mcp', '--tenant', 'default', '--tools', 'nope'], EXIT_USAGE, ['Unknown tool "nope"']],
  [
    ['mcp', '--tenant', 'default', '--scenario', 'aws_pulse'],
    EXIT_USAGE,
    ['--scenario and --level go together'],
  ],
  [
    ['mcp', '--tenant', 'default', '--tools', 'finish', '--scenario', 'aws_pulse', '--level', 'collect'],
    EXIT_USAGE,
    ['not both'],
  ],
];

/** Every command of the program with its path (`['tools', 'invoke']`), each top-level one loaded. */
function commands(): { path: string[]; command: Command }[] {
  const found: { path: string[]; command: Command }[] = [];
  const walk = (command: Command, at: string[]) => {
    if (command.commands.length === 0) found.push({ path: at, command });
    for (const sub of command.commands) if (sub.name() !== 'help') walk(sub, [...at, sub.name()]);
  };
  for (const name of Object.keys(COMMANDS)) {
    const program = createProgram({ io: { out: () => {}, err: () => {}, env: {} }, exitCode: 0 }, [name]);
    const top = program.commands.find((c) => c.name() === name);
    if (top) walk(top, [name]);
  }
  return found;
}

/** Options that take a value: `--tenant <tenant>`, not `--json`. */
const takesValue = (option: Option) => option.required || option.optional;

const DERIVED: Case[] = commands().flatMap(({ path: at, command }) => [
  // An unknown option, or the missing required option commander names first: both point at the help.
  [[...at, '--no-such-option'], EXIT_USAGE, [`(see: etp ${at.join(' ')} --help)`]] as Case,
  ...command.options.filter(takesValue).flatMap((option): Case[] => {
    const flag = option.long as string;
    // An option with its own parser says what it accepts itself; the others say they are empty.
    const empty = option.parseArg ? [flag] : [`${flag} is empty; give <`];
    return [
      [[...at, flag, ''], EXIT_USAGE, empty],
      [[...at, flag, '  '], EXIT_USAGE, option.parseArg ? [flag] : [`${flag} is empty`]],
      ...(option.parseArg
        ? []
        : [
            [
              [...at, flag, 'x1', flag, 'x2'],
              EXIT_USAGE,
              [`${flag} was given more than once; give it once`],
            ] as Case,
          ]),
    ];
  }),
]);

describe('bad command lines', () => {
  const table = [...WRITTEN, ...DERIVED];

  it('number at least 100', () => {
    expect(table.length).toBeGreaterThanOrEqual(100);
  });

  it.each(table)('etp %j exits %i saying %j', async (argv, code, words) => {
    // Act: no AWS region or credentials reach the command (the AWS SDK would need both to make a request).
    const outcome = await etp(argv, {});

    // Assess
    expect(outcome.code).toBe(code);
    const message = code === EXIT_FAILED ? outcome.out : outcome.err;
    for (const word of words) expect(message).toContain(word);
    expect(outcome.err).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
    if (code === EXIT_USAGE && !words[0]?.startsWith('Usage:')) {
      expect(outcome.err.trimEnd().split('\n')).toHaveLength(1);
      expect(outcome.out).toBe('');
    }
  });
});
