/**
 * The platform's identifier rules, in one place: what the dispatcher envelope,
 * the secret-reference table, the scenario files and the CLI accept.
 */
import { randomBytes } from 'node:crypto';
import { InvalidArgsError } from './errors';

/** One kind of identifier: its pattern, and what it accepts in words for error messages. */
export interface IdentifierRule {
  /** What the identifier is: `tenant id`, `run id`. */
  readonly label: string;
  readonly pattern: RegExp;
  /** What is accepted, in words: `1-80 letters, digits, - or _`. */
  readonly accepted: string;
}

/**
 * Tenant ids: the secret-reference table's partition key. Letters, digits and
 * `_ . -`, starting with a letter or digit, 1-128 characters: a DynamoDB key, a
 * log field, a path segment of S3 keys, none of which needs escaping.
 */
export const TENANT_ID: IdentifierRule = {
  label: 'tenant id',
  pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/,
  accepted: '1-128 letters, digits, _ . or -, starting with a letter or digit (acme, team-1)',
};

/** Secret names (the table's sort key: `aws_default`, `slack_default`): the tenant id rule. */
export const SECRET_NAME: IdentifierRule = {
  label: 'secret name',
  pattern: TENANT_ID.pattern,
  accepted: '1-128 letters, digits, _ . or -, starting with a letter or digit (slack_default)',
};

/**
 * Run ids: the Step Functions execution name (`$$.Execution.Name`) of a deployed
 * run, or the CLI's `--run-id`. The rule is the intersection of
 * - what StartExecution accepts as `name` (Step Functions API reference,
 *   "StartExecution": 1-80 characters, no whitespace, brackets, wildcards,
 *   `" # % \ ^ | ~ \` $ & , ; : /` or control characters), and
 * - what STS accepts in `RoleSessionName` (STS API reference, "AssumeRole":
 *   `[\w+=,.@-]`), where a run id becomes `etp-<runId>`,
 * narrowed to letters, digits, `-` and `_`, which are also safe in S3 keys and
 * idempotency keys. A deployed execution must be named within it (the console's
 * and EventBridge's generated UUID names are).
 */
export const RUN_ID: IdentifierRule = {
  label: 'run id',
  pattern: /^[A-Za-z0-9_-]{1,80}$/,
  accepted: '1-80 letters, digits, - or _ (a Step Functions execution name, e.g. run-2025-01-02)',
};

/**
 * A new run id, also the execution name: `<prefix>-<UTC timestamp>-<6 hex chars>`,
 * e.g. `run-20260102T030405Z-a1b2c3` (a deployed run: `etp scenario start`, the
 * console) or `local-…` (a local run). Sorts by time; the random part keeps two
 * runs started in the same second apart.
 */
export function newRunId(prefix: 'run' | 'local', now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `${prefix}-${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Tool, scenario and level names: snake_case, at most 64 characters (scenario
 * files, the registry, the envelope's `tool`, `scenario` and `level`).
 */
export const SNAKE_CASE_NAME: IdentifierRule = {
  label: 'name',
  pattern: /^[a-z][a-z0-9_]{0,63}$/,
  accepted: 'snake_case: a lowercase letter, then lowercase letters, digits or _, at most 64 characters',
};

/**
 * Call ids: `<level>/<index>` (`collect/0`), the level's snake_case name and the
 * call's position in it; `cli/0` for `etp tools invoke` without a level. With the
 * run id, a call id identifies a call (idempotency keys, S3 keys).
 */
export const CALL_ID: IdentifierRule = {
  label: 'call id',
  pattern: /^[a-z][a-z0-9_]{0,63}\/\d{1,6}$/,
  accepted: '<level>/<index>: a snake_case level name, / and the call index (collect/0)',
};

/**
 * AWS account ids: 12 digits (AWS Account Management reference guide, "View AWS
 * account identifiers"). The envelope's `account` of a per-account call.
 */
export const AWS_ACCOUNT_ID: IdentifierRule = {
  label: 'member account id',
  pattern: /^\d{12}$/,
  accepted: '12 digits (111122223333)',
};

/**
 * Names of a tenant's organization targets: `aws_org_` then snake_case
 * (`aws_org_default`; functions/runtime/aws/organization.ts), within the secret name rule.
 */
export const ORG_SECRET_NAME: IdentifierRule = {
  label: 'secret name of an organization target',
  pattern: /^aws_org_[a-z0-9_]{1,56}$/,
  accepted: 'aws_org_ then lowercase letters, digits or _ (aws_org_default)',
};

/** The organization secret a per-account level reads unless its `for_each_account.org_secret` names another. */
export const DEFAULT_ORG_SECRET = 'aws_org_default';

/**
 * The tool that lists a per-account level's accounts (functions/tools/aws/org-accounts.ts):
 * the engine's `org_targets` calls it through the dispatcher on the level itself,
 * without `account` (docs/organizations-runs.md, "Listing the accounts").
 */
export const ORG_ACCOUNTS_TOOL = 'aws_org_accounts';

/** Whether `value` is a string the rule accepts. */
export function isIdentifier(rule: IdentifierRule, value: unknown): value is string {
  return typeof value === 'string' && rule.pattern.test(value);
}

/** Longest part of a rejected value quoted back in a message. */
const QUOTED_CHARS = 40;

/**
 * Why `value` is not accepted, for an error message (`--run-id "my run/1:x" is
 * not a run id: 1-80 letters…`), or undefined when it is.
 *
 * @param where - what the value was given as: `--run-id`, `tenant`, `input.tenant`.
 */
export function identifierProblem(rule: IdentifierRule, value: unknown, where: string): string | undefined {
  if (isIdentifier(rule, value)) return undefined;
  if (value === undefined) return `${where} is missing: a ${rule.label} is ${rule.accepted}`;
  return `${where} ${describeValue(value)} is not a ${rule.label}: ${rule.accepted}`;
}

/**
 * Narrows `value` to an identifier of `rule`.
 *
 * @throws InvalidArgsError (`invalid_args`) saying what was given and what is accepted.
 * @example assertIdentifier(RUN_ID, options.runId, '--run-id');
 */
export function assertIdentifier(
  rule: IdentifierRule,
  value: unknown,
  where: string,
): asserts value is string {
  const problem = identifierProblem(rule, value, where);
  if (problem) throw new InvalidArgsError(problem);
}

/** The rejected value, quoted (masked if it looks like a credential, shortened if long). */
function describeValue(value: unknown): string {
  if (typeof value !== 'string') return value === null ? '(null)' : `(a ${typeof value})`;
  if (value === '') return '(empty)';
  // Loaded only for a rejected value: a valid identifier never needs the credential patterns.
  const { redactString } = require('./redact') as typeof import('./redact');
  const quoted = JSON.stringify(redactString(value.slice(0, QUOTED_CHARS)));
  return value.length > QUOTED_CHARS ? `${quoted}… (${value.length} chars)` : quoted;
}
