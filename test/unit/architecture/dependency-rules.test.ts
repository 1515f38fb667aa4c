import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

/** Runs dependency-cruiser with the project's rules on `paths`, as `npm run deps` does. */
function cruise(...paths: string[]) {
  const run = spawnSync(DEPCRUISE, ['--config', '.dependency-cruiser.cjs', ...paths], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the import rules (npm run deps)', () => {
  it('fail on an import cycle, type-only imports included', () => {
    // Act
    const { status, output } = cruise('test/fixtures/import-cycle');

    // Assess
    expect(status).not.toBe(0);
    expect(output).toContain('error no-circular: test/fixtures/import-cycle/ping.ts');
  });

  it('hold for the deployed code, the CDK app and the CLI', () => {
    // Act
    const { status, output } = cruise('functions', 'lib', 'bin');

    // Assess
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  });
});
