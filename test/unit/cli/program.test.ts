import { COMMANDS } from '../../../bin/cli/commands';
import { EXIT_OK } from '../../../bin/cli/io';
import { createProgram } from '../../../bin/cli/program';
import { version } from '../../../package.json';
import { etp } from './run-etp';

/** Every `help` a user can type: `etp help`, `etp help <command>`, `etp <command> help <subcommand>`, with the usage line each prints. */
function helpRequests(): [string[], string][] {
  const requests: [string[], string][] = [[['help'], 'Usage: etp [options] [command]']];
  for (const name of Object.keys(COMMANDS)) {
    const command = createProgram({ io: { out: () => {}, err: () => {}, env: {} }, exitCode: EXIT_OK }, [
      name,
    ]).commands.find((candidate) => candidate.name() === name);
    requests.push([['help', name], `Usage: etp ${name} `]);
    for (const sub of command?.commands ?? []) {
      if (sub.name() !== 'help')
        requests.push([[name, 'help', sub.name()], `Usage: etp ${name} ${sub.name()} `]);
    }
  }
  return requests;
}

describe('etp', () => {
  it('prints the version', async () => {
    // Act
    const outcome = await etp(['--version']);

    // Assess
    expect(outcome).toEqual({ code: 0, out: `${version}\n`, err: '' });
  });

  it('prints the help on request and exits 0', async () => {
    // Act
    const { code, out } = await etp(['--help']);

    // Assess
    expect(code).toBe(0);
    expect(out).toMatch(/^Usage: etp \[options\] \[command\]/);
    expect(out).toMatch(/\n {2}tools\b/);
    expect(out).toMatch(/\n {2}secrets\b/);
    expect(out).toMatch(/\n {2}scenario\b/);
  });

  it.each(helpRequests())('prints the help asked for with %j on stdout and exits 0', async (argv, usage) => {
    // Act
    const outcome = await etp(argv);

    // Assess
    expect({ code: outcome.code, err: outcome.err }).toEqual({ code: 0, err: '' });
    expect(outcome.out.startsWith(usage)).toBe(true);
  });

  it('prints the help on stderr and exits 2 when no command is given', async () => {
    // Act
    const { code, out, err } = await etp([]);

    // Assess
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(/^Usage: etp /);
  });

  it.each([
    [
      ['nope'],
      "error: unknown command 'nope'. Commands of etp: tools, secrets, scenario, run, model, mcp, console, dev\n",
    ],
    [
      ['tool', 'list'],
      "error: unknown command 'tool' (Did you mean tools?). Commands of etp: tools, secrets, scenario, run, model, mcp, console, dev\n",
    ],
    [['tools', 'run'], "error: unknown command 'run'. Commands of etp tools: list, docs, schema, invoke\n"],
    [
      ['tools', 'invoke', 'finish'],
      "error: required option '--tenant <tenant>' not specified; --tenant <tenant>: tenant whose secrets the tool resolves (see: etp tools invoke --help)\n",
    ],
    [
      ['tools', 'list', '--jsno'],
      "error: unknown option '--jsno' (Did you mean --json?) (see: etp tools list --help)\n",
    ],
    [
      ['scenario', 'run', 'a', 'b'],
      "error: too many arguments for 'run'. Expected 1 argument but got 2. (see: etp scenario run --help)\n",
    ],
  ])('exits 2 with one line saying what was wrong and what is accepted for %j', async (argv, message) => {
    // Act
    const outcome = await etp(argv);

    // Assess
    expect(outcome).toEqual({ code: 2, out: '', err: message });
  });
});
