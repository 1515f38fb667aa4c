import { version } from '../../../package.json';
import { etp } from './run-etp';

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
