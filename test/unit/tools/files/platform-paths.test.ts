import { ENGINE_PATHS } from '../../../../functions/engine/workspaces';
import { workspaceRoot } from '../../../../functions/runtime/workspace-path';
import { assertWritablePath, PLATFORM_PATHS } from '../../../../functions/tools/files/workspace-args';
import { findingsKey } from '../../../../functions/tools/snapshots/findings/store';

/** Every path the platform writes into a run's workspace, relative to the workspace root. */
function platformWrittenPaths(): string[] {
  const run = { tenant: 'acme', scenario: 'snapshot_forensics', runId: 'r1' };
  return [
    ENGINE_PATHS.callResult('scan', 0, 'scan_snapshots'),
    ENGINE_PATHS.findings('scan'),
    ENGINE_PATHS.account('collect', '111122223333'),
    ENGINE_PATHS.finish('investigate'),
    ENGINE_PATHS.conversation('investigate', 3),
    ENGINE_PATHS.summary(),
    'results/call-1.json',
    findingsKey(run).slice(workspaceRoot(run).length),
  ];
}

describe('platform paths of a run workspace', () => {
  it.each([
    ...platformWrittenPaths(),
    // Whatever the case: a case-insensitive file system (macOS, Windows local runs) maps them onto the same files.
    'Results/call-1.json',
    'SUMMARY.JSON',
    'Snapshots/findings.json',
    'LEVELS/scan/findings.json',
    // …and as a file for a folder name, a folder for a file name: either would block the platform's own write.
    'summary.json/x',
    'results',
    'snapshots',
  ])('refuse file-tool writes to %s', (path) => {
    expect(() => assertWritablePath(path)).toThrow(
      expect.objectContaining({
        code: 'invalid_args',
        message: expect.stringContaining('written by the platform'),
      }),
    );
  });

  it.each([
    'notes/summary.json',
    'reports/results/x.md',
    'snapshots.md',
    'summary.json.bak',
    'levelsx/a.json',
  ])('leave %s writable (only the top-level names are reserved)', (path) => {
    expect(() => assertWritablePath(path)).not.toThrow();
  });

  it('reserve each name as a folder or a file, as written', () => {
    expect(PLATFORM_PATHS).toEqual(['results/', 'levels/', 'conversations/', 'snapshots/', 'summary.json']);
  });
});
