import { InvalidArgsError } from '../../../functions/runtime/errors';
import {
  S3_MAX_KEY_BYTES,
  WORKSPACE_PATH_ACCEPTED,
  workspaceKey,
  workspacePath,
  workspacePathProblem,
  workspacePrefix,
  workspaceRoot,
} from '../../../functions/runtime/workspace-path';
import { WORKSPACE_ESCAPES } from '../../helpers/workspace-escapes';

describe('workspacePath', () => {
  it.each([
    ['reports/pulse.md'],
    ['results/collect/0.json'],
    ['a'],
    ['.hidden-notes'],
    ['v1.2.3_final-draft.txt'],
    [`${'d/'.repeat(31)}x.md`],
  ])('accepts %s as it is', (path) => {
    expect(workspacePath(path)).toBe(path);
  });

  it('normalizes NFKC look-alikes of safe characters (fullwidth letters) instead of refusing them', () => {
    expect(workspacePath('\uff52\uff45\uff50\uff4f\uff52\uff54.md')).toBe('report.md');
  });

  it.each(WORKSPACE_ESCAPES.map((attempt) => [attempt.name, attempt]))(
    'refuses %s with invalid_args, the reason and what is accepted',
    (_name, attempt) => {
      // Act
      const refuse = () => workspacePath(attempt.path);

      // Assess
      expect(refuse).toThrow(InvalidArgsError);
      expect(refuse).toThrow(attempt.reason);
      expect(refuse).toThrow(WORKSPACE_PATH_ACCEPTED);
    },
  );

  it('quotes a refused path shortened, and masks what looks like a credential', () => {
    // Act
    const problem = workspacePathProblem('../xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx');

    // Assess
    expect(problem).toContain('<redacted>');
    expect(problem).not.toContain('AbCdEfGhIjKlMnOpQrStUvWx');
  });

  it('refuses what is not a string, and a 10 MB string without normalizing it', () => {
    expect(workspacePathProblem(42)).toBe(`path must be a string: ${WORKSPACE_PATH_ACCEPTED}`);
    expect(workspacePathProblem('a'.repeat(10_000_000))).toMatch(/it is 10000000 characters long/);
  });
});

describe('workspacePrefix', () => {
  it('accepts nothing, a folder with its trailing slash and a start of a name', () => {
    expect([undefined, '', 'results/', 'rep'].map((prefix) => workspacePrefix(prefix))).toEqual([
      '',
      '',
      'results/',
      'rep',
    ]);
  });

  it.each(
    WORKSPACE_ESCAPES.filter((attempt) => attempt.path !== '').map((attempt) => [attempt.name, attempt]),
  )('refuses %s', (_name, attempt) => {
    expect(() => workspacePrefix(attempt.path)).toThrow(attempt.reason);
  });
});

describe('workspaceRoot', () => {
  it('gives a scenario call its run prefix and any other call a scratch prefix', () => {
    expect(workspaceRoot({ tenant: 'acme', scenario: 'aws_pulse', runId: 'run-1' })).toBe(
      'runs/acme/aws_pulse/run-1/',
    );
    expect(workspaceRoot({ tenant: 'acme', runId: 'local-1' })).toBe('scratch/acme/local-1/');
  });

  it.each([
    [{ tenant: '../x', runId: 'r1' }, /tenant "..\/x" is not a tenant id/],
    [{ tenant: 'acme', runId: 'r/1' }, /runId "r\/1" is not a run id/],
    [{ tenant: 'acme', runId: 'r1', scenario: 'Aws/Pulse' }, /scenario "Aws\/Pulse" is not a name/],
  ])('refuses a scope whose identifier could name another prefix (%j)', (scope, message) => {
    expect(() => workspaceRoot(scope)).toThrow(message);
  });
});

describe('workspaceKey', () => {
  it('joins the root and the path', () => {
    expect(workspaceKey('runs/acme/aws_pulse/r1/', 'reports/x.md')).toBe(
      'runs/acme/aws_pulse/r1/reports/x.md',
    );
  });

  it('refuses a key over the S3 key limit and a path that was never checked', () => {
    const root = `runs/${'t'.repeat(128)}/${'s'.repeat(64)}/${'r'.repeat(80)}/`;
    expect(() => workspaceKey(root, `${'a'.repeat(255)}/${'b'.repeat(255)}/${'c'.repeat(255)}`)).toThrow(
      `makes an object key over ${S3_MAX_KEY_BYTES} bytes`,
    );
    expect(() => workspaceKey('runs/a/s/r/', '../x')).toThrow('resolves outside the workspace');
  });

  it('keeps the longest accepted path under the longest root within the S3 key limit', () => {
    const root = workspaceRoot({ tenant: 't'.repeat(128), scenario: 's'.repeat(64), runId: 'r'.repeat(80) });
    const longest = `${'a'.repeat(255)}/${'b'.repeat(254)}/c`;
    expect(Buffer.byteLength(workspaceKey(root, workspacePath(longest)))).toBeLessThanOrEqual(
      S3_MAX_KEY_BYTES,
    );
  });
});
