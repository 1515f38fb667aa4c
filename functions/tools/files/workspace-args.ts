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
 * @param options.writable - also refuse the {@link PLATFORM_FOLDERS}. @default false
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
 * Top-level folders the platform writes and file tools only read: `results/`
 * (claim-checked results) and `levels/` (each level's `finish` answer and the
 * scenario engine's own files), so a model cannot rewrite what later levels and
 * reports trust.
 */
export const PLATFORM_FOLDERS: readonly string[] = ['results', 'levels'];

function writableProblem(path: string): string | undefined {
  const top = path.normalize('NFKC').split('/')[0] ?? '';
  if (!PLATFORM_FOLDERS.includes(top)) return undefined;
  return (
    `the path ${JSON.stringify(path)} is refused: ${PLATFORM_FOLDERS.map((folder) => `${folder}/`).join(' and ')} ` +
    'are written by the platform and can only be read. Write your files elsewhere, e.g. notes/ or reports/'
  );
}

/**
 * @throws InvalidArgsError when `path` lies in a {@link PLATFORM_FOLDERS} folder.
 */
export function assertWritablePath(path: string): void {
  const problem = writableProblem(path);
  if (problem) throw new InvalidArgsError(problem);
}
