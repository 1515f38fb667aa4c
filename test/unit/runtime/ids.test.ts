import { localRunId } from '../../../bin/local/local-run';
import { InvalidArgsError } from '../../../functions/runtime/errors';
import {
  assertIdentifier,
  CALL_ID,
  identifierProblem,
  isIdentifier,
  RUN_ID,
  SECRET_NAME,
  SNAKE_CASE_NAME,
  TENANT_ID,
} from '../../../functions/runtime/ids';

describe('identifier rules', () => {
  it.each([
    [TENANT_ID.label, TENANT_ID, ['acme', 'default', 'team-1', 'a.b_c', '7eleven', 'x'.repeat(128)]],
    [SECRET_NAME.label, SECRET_NAME, ['aws_default', 'slack_default', 'slack.ops-2']],
    [
      RUN_ID.label,
      RUN_ID,
      ['run-1', 'local-20250102T030405Z-a1b2c3', 'aws_pulse-2024-05-01T06-00', 'r'.repeat(80)],
    ],
    [CALL_ID.label, CALL_ID, ['collect/0', 'report/12', 'cli/0']],
    [SNAKE_CASE_NAME.label, SNAKE_CASE_NAME, ['aws_pulse', 'collect', 'aws_ec2_inventory']],
  ])('a %s accepts its usual values', (_label, rule, values) => {
    for (const value of values) expect([value, isIdentifier(rule, value)]).toEqual([value, true]);
  });

  it.each([
    [TENANT_ID.label, TENANT_ID, ['', 'a b', '-acme', '.acme', 'acme/1', 'x'.repeat(129), null, 7]],
    // What Step Functions refuses in an execution name (":", "/", spaces) or STS in a session name.
    [RUN_ID.label, RUN_ID, ['', 'my run/1:x', 'run:1', 'run.1', 'run#1', 'r'.repeat(81), undefined]],
    [CALL_ID.label, CALL_ID, ['collect', 'collect/', 'Collect/0', 'collect/-1', '/0', 'collect/0/1']],
    [SNAKE_CASE_NAME.label, SNAKE_CASE_NAME, ['AwsPulse', 'aws-pulse', '_aws', `a${'b'.repeat(64)}`]],
  ])('a %s refuses malformed values', (_label, rule, values) => {
    for (const value of values) expect([value, isIdentifier(rule, value)]).toEqual([value, false]);
  });

  it('gives local runs ids that are valid run ids', () => {
    expect(isIdentifier(RUN_ID, localRunId())).toBe(true);
  });
});

describe('identifierProblem()', () => {
  it.each([
    ['', '--tenant (empty) is not a tenant id'],
    [null, '--tenant (null) is not a tenant id'],
    [42, '--tenant (a number) is not a tenant id'],
    [undefined, '--tenant is missing: a tenant id is'],
    ['a b', '--tenant "a b" is not a tenant id'],
    [`${'t'.repeat(50)} x`, `--tenant "${'t'.repeat(40)}"… (52 chars) is not a tenant id`],
    ['token xoxb-1111-2222-fakeTESTexample', '--tenant "token <redacted>" is not a tenant id'], // fake test example
  ])('describes %p and says what is accepted', (value, start) => {
    // Act
    const problem = identifierProblem(TENANT_ID, value, '--tenant');

    // Assess
    expect(problem?.startsWith(start)).toBe(true);
    expect(problem?.endsWith(TENANT_ID.accepted)).toBe(true);
  });

  it('is undefined for an accepted value', () => {
    expect(identifierProblem(RUN_ID, 'run-1', '--run-id')).toBeUndefined();
  });
});

describe('assertIdentifier()', () => {
  it('throws invalid_args with the problem', () => {
    // Act
    const attempt = () => assertIdentifier(RUN_ID, 'run:1', '--run-id');

    // Assess
    expect(attempt).toThrow(InvalidArgsError);
    expect(attempt).toThrow(`--run-id "run:1" is not a run id: ${RUN_ID.accepted}`);
  });
});
