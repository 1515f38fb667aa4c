import { COMMANDS, commandNamed } from '../../../bin/cli/commands';
import { createProgram } from '../../../bin/cli/program';
import { etp } from './run-etp';

const quiet = () => ({ io: { out: () => {}, err: () => {}, env: {} }, exitCode: 0 });

describe('the table of commands (bin/cli/commands.ts)', () => {
  it.each(Object.keys(COMMANDS))(
    'loads %s as the command of that name, with its subcommands or action',
    (name) => {
      // Act
      const program = createProgram(quiet(), [name]);

      // Assess
      const command = program.commands.find((c) => c.name() === name);
      expect(command?.description()).toBeTruthy();
      expect(command?.commands.length || command?.options.length).toBeGreaterThan(0);
    },
  );

  it('lists every command in etp --help by its summary', async () => {
    // Act
    const { code, out } = await etp(['--help']);

    // Assess
    expect(code).toBe(0);
    for (const [name, entry] of Object.entries(COMMANDS)) {
      expect(out).toContain(name);
      expect(out.replace(/\s+/g, ' ')).toContain(entry.summary.replace(/\s+/g, ' '));
    }
  });

  it('finds the command a line runs, after options and for help', () => {
    expect(commandNamed(['--verbose', 'tools', 'list'])).toBe('tools');
    expect(commandNamed(['help', 'scenario'])).toBe('scenario');
    expect(commandNamed(['--version'])).toBeUndefined();
    expect(commandNamed(['constructor'])).toBeUndefined();
  });

  it('loads only the module of the command that runs', () => {
    jest.isolateModules(() => {
      // Prepare: every command module but tools' fails when loaded.
      for (const name of Object.keys(COMMANDS).filter((n) => n !== 'tools')) {
        jest.doMock(`../../../bin/cli/${name}`, () => {
          throw new Error(`${name} was loaded`);
        });
      }
      const { createProgram: isolated } =
        require('../../../bin/cli/program') as typeof import('../../../bin/cli/program');

      // Act, Assess: tools list loads none of them; a scenario command loads its own.
      expect(() => isolated(quiet(), ['tools', 'list'])).not.toThrow();
      expect(() => isolated(quiet(), ['scenario', 'list'])).toThrow('scenario was loaded');
    });
  });
});
