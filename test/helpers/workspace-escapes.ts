/**
 * Paths that try to leave a run's workspace, each with the reason the path rule
 * (functions/runtime/workspace-path.ts) must give. Every workspace and every file
 * tool must refuse all of them with `invalid_args`, before any request.
 */
export interface WorkspaceEscape {
  /** What the path tries. */
  readonly name: string;
  readonly path: string;
  /** A part of the refusal message. */
  readonly reason: RegExp;
}

export const WORKSPACE_ESCAPES: readonly WorkspaceEscape[] = [
  { name: 'parent directory', path: '../other-run/notes.md', reason: /\.\. would leave the workspace/ },
  { name: 'parent directory mid-path', path: 'notes/../../other-run/x.md', reason: /\.\. would leave/ },
  {
    name: 'parents up to another tenant',
    path: '../../../../other-tenant/aws_pulse/r9/x',
    reason: /\.\. would/,
  },
  { name: 'bare ..', path: '..', reason: /\.\. would leave the workspace/ },
  { name: 'absolute path', path: '/etc/passwd', reason: /absolute paths are not accepted/ },
  { name: 'absolute key of another run', path: '/runs/acme/aws_pulse/r2/x.md', reason: /absolute paths/ },
  { name: 'percent-encoded ..', path: '%2e%2e/x.md', reason: /% is not accepted/ },
  { name: 'double-encoded ..', path: '%252e%252e%252fx.md', reason: /% is not accepted/ },
  { name: 'encoded slash after ..', path: '..%2fother-run%2fx.md', reason: /% is not accepted/ },
  { name: 'overlong UTF-8 slash, encoded', path: '..%c0%afx.md', reason: /% is not accepted/ },
  { name: 'encoded NUL', path: 'x.md%00.txt', reason: /% is not accepted/ },
  { name: 'backslash ..', path: '..\\other-run\\x.md', reason: /backslashes are not accepted/ },
  { name: 'backslash mid-path', path: 'notes\\..\\..\\x.md', reason: /backslashes are not accepted/ },
  { name: 'Windows drive letter', path: 'C:/Windows/win.ini', reason: /drive letters are not accepted/ },
  { name: 'home directory', path: '~/.aws/credentials', reason: /~ \(home directories\) is not accepted/ },
  { name: 'file URI', path: 'file:///etc/passwd', reason: /the character ":"/ },
  { name: 'fullwidth dots', path: '\uff0e\uff0e/other-run/x.md', reason: /\.\. would leave the workspace/ },
  {
    name: 'fullwidth solidus',
    path: '..\uff0fother-run\uff0fx.md',
    reason: /\.\. would leave the workspace/,
  },
  { name: 'two-dot leader', path: '\u2025/other-run/x.md', reason: /\.\. would leave the workspace/ },
  { name: 'one-dot leaders', path: '\u2024\u2024/x.md', reason: /\.\. would leave the workspace/ },
  { name: 'division slash look-alike', path: '..\u2215x.md', reason: /the character "∕" \(U\+2215\)/ },
  { name: 'NUL byte', path: 'notes.md\u0000.txt', reason: /control characters/ },
  { name: 'line break and ..', path: 'x\n../y.md', reason: /control characters/ },
  { name: 'empty segment', path: 'notes//x.md', reason: /empty segments/ },
  { name: 'dot segment', path: 'notes/./x.md', reason: /"\." segments are not accepted/ },
  { name: 'over-long path', path: `notes/${'a'.repeat(300)}/${'b'.repeat(300)}/c.md`, reason: /bytes long/ },
  { name: 'too many segments', path: `${'d/'.repeat(40)}x.md`, reason: /segments/ },
  { name: 'empty path', path: '', reason: /is empty/ },
  // Names some file systems alias to another name (a local workspace on Windows or NTFS).
  { name: 'trailing dot (summary.json. is summary.json)', path: 'summary.json.', reason: /ends with a dot/ },
  { name: 'trailing dots in a folder', path: 'results../x.md', reason: /ends with a dot/ },
  { name: 'trailing space', path: 'summary.json ', reason: /the character " "/ },
  { name: 'trailing dot and space', path: 'summary.json. ', reason: /the character " "/ },
  { name: 'Windows device name', path: 'reports/CON', reason: /Windows device name CON/ },
  { name: 'Windows device name with an extension', path: 'nul.txt', reason: /Windows device name NUL/ },
  { name: 'Windows serial port', path: 'com1.md', reason: /Windows device name COM1/ },
];
