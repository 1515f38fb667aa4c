import * as z from 'zod/mini';
import type { ToolContext } from '../../runtime/context';
import { InvalidArgsError, PlatformError } from '../../runtime/errors';
import type { Workspace } from '../../runtime/workspace';
import { MAX_WORKSPACE_PATH_BYTES, workspacePathProblem } from '../../runtime/workspace-path';

/**
 * A workspace path argument: checked by the one path rule
 * (functions/runtime/workspace-path.ts) while the args are validated, so a path
 * leaving the workspace is `invalid_args` with the reason and what is accepted,
 * before any workspace request. The workspaces check it again.
 *
 * @param description - for the model: what the file is, with an example.
 * @param options.writable - also refuse the {@link PLATFORM_PATHS}. @default false
 */
export function workspacePathArg(description: string, options: { readonly writable?: boolean } = {}) {
  return z.string().check(
    z.superRefine((value, ctx) => {
      const problem =
        workspacePathProblem(value, 'the path') ?? (options.writable ? writableProblem(value) : undefined);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
    }),
    z.describe(
      `${description} Relative to this run's workspace: segments of letters, digits, . _ or - separated by /, ` +
        `at most ${MAX_WORKSPACE_PATH_BYTES} bytes; no .., no leading /.`,
    ),
  );
}

/**
 * The call's workspace, for a file tool that cannot work without one.
 *
 * @throws PlatformError (`internal_error`) where the dispatcher has no workspace configured (no `RUN_BUCKET`).
 */
export function requireWorkspace(ctx: ToolContext): Workspace {
  const workspace = ctx.workspace();
  if (!workspace) {
    throw new PlatformError(
      'internal_error',
      `${ctx.tool} needs the run's workspace, and this dispatcher has none configured (RUN_BUCKET)`,
    );
  }
  return workspace;
}

/**
 * Top-level names of the workspace the platform writes and file tools only
 * read, so a model cannot rewrite what later levels, reports and tools trust:
 * `results/` (claim-checked results), `levels/` (each level's calls, findings and
 * `finish` answer), `conversations/` (the engine's model turns), `snapshots/`
 * (the snapshot findings `inspect_finding` returns) and `summary.json` (the run
 * summary). test/unit/tools/files/platform-paths.test.ts holds every writer's
 * path against this list.
 */
export const PLATFORM_PATHS: readonly string[] = [
  'results/',
  'levels/',
  'conversations/',
  'snapshots/',
  'summary.json',
];

function writableProblem(path: string): string | undefined {
  // Case-blind: on a case-insensitive file system (macOS, Windows local runs) Results/ is results/.
  const top = path.normalize('NFKC').toLowerCase().split('/')[0] ?? '';
  // A name is reserved as a file and as a folder alike: a file named `results`, or a folder named
  // `summary.json`, would keep the platform from writing its own there.
  const reserved = PLATFORM_PATHS.some((name) => name.replace(/\/$/, '') === top);
  if (!reserved) return undefined;
  return (
    `the path ${JSON.stringify(path)} is refused: ${PLATFORM_PATHS.join(', ')} ` +
    'are written by the platform and can only be read. Write your files elsewhere, e.g. notes/ or reports/'
  );
}

/**
 * @throws InvalidArgsError when `path` is one of the {@link PLATFORM_PATHS} or lies in one.
 */
export function assertWritablePath(path: string): void {
  const problem = writableProblem(path);
  if (problem) throw new InvalidArgsError(problem);
}
