/**
 * The one path rule of run workspaces (docs/design.md, "Workspace, file tools and
 * claim-check"), used by the S3 and the local-directory workspace alike: which
 * relative paths a file tool (or the platform) may name, and the root prefix each
 * call's workspace is confined to.
 *
 * The rule is an allowlist: after Unicode NFKC normalization a path is 1-32
 * segments of ASCII letters, digits, `.`, `_` and `-`, separated by `/`. Nothing
 * is decoded: `%`, `\`, `:`, `~` and every non-ASCII character are simply not
 * accepted, so no encoded, double-encoded or look-alike form of `..` can survive
 * to name another prefix. Names some file systems alias to another name are
 * refused too: a segment ending with `.` (`summary.json.` is `summary.json` on
 * Windows, which drops trailing dots and spaces; spaces are outside the allowlist)
 * and Windows device names (`CON`, `nul.txt`). The checks before the allowlist
 * only make the message say what was wrong.
 */
import { InvalidArgsError } from './errors';
import { assertIdentifier, RUN_ID, SNAKE_CASE_NAME, TENANT_ID } from './ids';
import { redactString } from './redact';
import type { WorkspaceScope } from './workspace';

/** Prefix of every run's workspace in the platform's bucket: `runs/<tenant>/<scenario>/<runId>/`. */
export const RUNS_PREFIX = 'runs/';

/**
 * Prefix of the workspaces of calls made outside a scenario (`etp tools invoke`):
 * `scratch/<tenant>/<runId>/`. Objects under it expire by a lifecycle rule.
 */
export const SCRATCH_PREFIX = 'scratch/';

/** Longest S3 object key: 1,024 bytes of UTF-8 (Amazon S3 user guide, "Naming Amazon S3 objects"). */
export const S3_MAX_KEY_BYTES = 1024;

/**
 * Longest relative path, in UTF-8 bytes. The longest root prefix is 280 bytes
 * (`runs/` + a 128-byte tenant + a 64-byte scenario + an 80-byte run id and three
 * `/`), so every key stays well inside {@link S3_MAX_KEY_BYTES}.
 */
export const MAX_WORKSPACE_PATH_BYTES = 512;

/** Longest segment: 255 bytes, the file name limit of Linux and macOS file systems (`NAME_MAX`). */
export const MAX_SEGMENT_BYTES = 255;

/** Most segments (directory depth plus the file name) in one path. */
export const MAX_SEGMENTS = 32;

/** What a workspace path is, in words: every refusal ends with it. */
export const WORKSPACE_PATH_ACCEPTED =
  `a relative path such as reports/pulse.md: 1-${MAX_SEGMENTS} segments separated by /, ` +
  'each made of letters, digits, . _ or - (not . or .. alone, not ending with ., not a Windows device name ' +
  'such as CON or NUL), ' +
  `at most ${MAX_WORKSPACE_PATH_BYTES} bytes in all`;

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const ONLY_DOTS = /^\.+$/;
// C0 controls (NUL included), DEL and C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const DRIVE_LETTER = /^[A-Za-z]:/;
/**
 * Windows device names, with or without an extension (`CON`, `nul.txt`, `COM1`):
 * Win32 maps them to devices in every folder ("Naming Files, Paths, and
 * Namespaces", Microsoft Learn), so a local workspace on Windows cannot hold them.
 */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.|$)/i;
/** Longest input normalized at all, in UTF-16 units: NFKC grows text at most a few times, never shrinks it below a quarter. */
const MAX_INPUT_CHARS = MAX_WORKSPACE_PATH_BYTES * 4;
const QUOTED_CHARS = 60;

/** The reason a normalized path is refused, or undefined. */
function problemOf(path: string, allowTrailingSlash: boolean): string | undefined {
  if (CONTROL.test(path)) return 'control characters (NUL, line breaks…) are not accepted';
  if (path.startsWith('/')) return 'absolute paths are not accepted: paths are relative to the workspace';
  if (path.includes('\\')) return 'backslashes are not accepted: separate segments with /';
  if (DRIVE_LETTER.test(path)) return 'drive letters are not accepted';
  if (path.startsWith('~')) return '~ (home directories) is not accepted';
  if (path.includes('%')) return '% is not accepted: paths are not URL-encoded';
  const bytes = Buffer.byteLength(path, 'utf8');
  if (bytes > MAX_WORKSPACE_PATH_BYTES) return `it is ${bytes} bytes long`;
  const body = allowTrailingSlash && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = body.split('/');
  if (segments.length > MAX_SEGMENTS) return `it has ${segments.length} segments`;
  for (const segment of segments) {
    if (segment === '') return 'empty segments (// or a trailing /) are not accepted';
    if (segment === '..') return '.. would leave the workspace';
    if (ONLY_DOTS.test(segment)) return `"${segment}" segments are not accepted`;
    if (segment.endsWith('.')) {
      return `"${segment}" ends with a dot: Windows file systems drop trailing dots, so it would name the same file as "${segment.replace(/\.+$/, '')}"`;
    }
    const device = WINDOWS_DEVICE.exec(segment);
    if (device) {
      return `"${segment}" is the Windows device name ${device[1]?.toUpperCase()}: it names a device, not a file, on Windows`;
    }
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      return `a segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
    }
    if (!SEGMENT.test(segment)) {
      const bad = [...segment].find((char) => !SEGMENT.test(char)) ?? '';
      const code = `U+${(bad.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
      return `the character ${JSON.stringify(bad)} (${code}) is not accepted`;
    }
  }
  return undefined;
}

function quoted(value: string): string {
  const shown = JSON.stringify(redactString(value.slice(0, QUOTED_CHARS)));
  return value.length > QUOTED_CHARS ? `${shown}… (${value.length} chars)` : shown;
}

/** Normalizes and checks; returns the path or the refusal message. */
function check(
  value: unknown,
  where: string,
  allowTrailingSlash: boolean,
): { path: string } | { problem: string } {
  if (typeof value !== 'string') {
    return { problem: `${where} must be a string: ${WORKSPACE_PATH_ACCEPTED}` };
  }
  if (value === '') return { problem: `${where} is empty: ${WORKSPACE_PATH_ACCEPTED}` };
  const reason =
    value.length > MAX_INPUT_CHARS
      ? `it is ${value.length} characters long`
      : problemOf(value.normalize('NFKC'), allowTrailingSlash);
  if (reason)
    return {
      problem: `${where} ${quoted(value)} is refused: ${reason}. Accepted: ${WORKSPACE_PATH_ACCEPTED}`,
    };
  return { path: value.normalize('NFKC') };
}

/**
 * Why `value` is not a workspace path (a message naming the problem and what is
 * accepted), or undefined when it is one. For schemas that report violations.
 *
 * @param where - the argument's name in the message. @default 'path'
 */
export function workspacePathProblem(value: unknown, where = 'path'): string | undefined {
  const checked = check(value, where, false);
  return 'problem' in checked ? checked.problem : undefined;
}

/**
 * The workspace path `value` names: NFKC-normalized (a fullwidth `ａ.md` is
 * `a.md`), checked against the rule above.
 *
 * @param where - the argument's name in the message. @default 'path'
 * @throws InvalidArgsError (`invalid_args`) saying what was wrong and what is accepted.
 * @example workspacePath('reports/pulse.md') // 'reports/pulse.md'
 * @example workspacePath('../other-run/x') // throws: .. would leave the workspace
 */
export function workspacePath(value: unknown, where = 'path'): string {
  const checked = check(value, where, false);
  if ('problem' in checked) throw new InvalidArgsError(checked.problem);
  return checked.path;
}

/**
 * Why `value` is not a listing prefix (see {@link workspacePrefix}), or undefined
 * when it is one (`''` included).
 */
export function workspacePrefixProblem(value: unknown, where = 'prefix'): string | undefined {
  if (value === undefined || value === '') return undefined;
  const checked = check(value, where, true);
  return 'problem' in checked ? checked.problem : undefined;
}

/**
 * A listing prefix: `''` (everything), or a path that may end with `/`
 * (`results/`), checked like {@link workspacePath}. As in S3, it matches the
 * start of paths (`rep` lists `reports/x.md`).
 *
 * @throws InvalidArgsError (`invalid_args`) saying what was wrong and what is accepted.
 */
export function workspacePrefix(value: unknown, where = 'prefix'): string {
  if (value === undefined || value === '') return '';
  const checked = check(value, where, true);
  if ('problem' in checked) throw new InvalidArgsError(checked.problem);
  return checked.path;
}

/**
 * The root prefix of a call's workspace: `runs/<tenant>/<scenario>/<runId>/` for a
 * call of a scenario, `scratch/<tenant>/<runId>/` otherwise, so a call without a
 * scenario (`etp tools invoke`, a level run on its own) still has a place for
 * `finish` and the claim-check. Each identifier is checked again here
 * (functions/runtime/ids.ts: none holds `/`), whoever built the scope.
 *
 * @throws InvalidArgsError when an identifier breaks its rule.
 * @example workspaceRoot({ tenant: 'acme', scenario: 'aws_pulse', runId: 'r1' }) // 'runs/acme/aws_pulse/r1/'
 */
export function workspaceRoot(scope: WorkspaceScope): string {
  assertIdentifier(TENANT_ID, scope.tenant, 'tenant');
  assertIdentifier(RUN_ID, scope.runId, 'runId');
  if (scope.scenario === undefined) return `${SCRATCH_PREFIX}${scope.tenant}/${scope.runId}/`;
  assertIdentifier(SNAKE_CASE_NAME, scope.scenario, 'scenario');
  return `${RUNS_PREFIX}${scope.tenant}/${scope.scenario}/${scope.runId}/`;
}

/**
 * The object key of `relative` (already checked by {@link workspacePath} or
 * {@link workspacePrefix}) under `root`, asserting once more that it stays under
 * the root and within S3's key length.
 *
 * @throws InvalidArgsError when the key would leave the root or exceed {@link S3_MAX_KEY_BYTES}.
 */
export function workspaceKey(root: string, relative: string): string {
  const key = `${root}${relative}`;
  const segments = relative.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.') || !key.startsWith(root)) {
    throw new InvalidArgsError(`path ${quoted(relative)} resolves outside the workspace`);
  }
  if (Buffer.byteLength(key, 'utf8') > S3_MAX_KEY_BYTES) {
    throw new InvalidArgsError(
      `path ${quoted(relative)} makes an object key over ${S3_MAX_KEY_BYTES} bytes. Accepted: ${WORKSPACE_PATH_ACCEPTED}`,
    );
  }
  return key;
}
