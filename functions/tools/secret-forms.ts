/**
 * The payload forms of each family of secret names (docs/design.md, "Secret
 * payloads"), checked before a value is stored where no tool has read it yet:
 * `etp secrets seed --ref-kind inline` seals only a value its tools accept.
 * One entry per connector family; each check is the connector's own parser, the
 * one its tools run, loaded only when a value of that family is checked.
 */
import { awsSecretPayload } from '../runtime/aws/credentials';
import { ORG_SECRET_PREFIX, parseOrgTargetSecret } from '../runtime/aws/organization';
import { parseSecretPayload } from '../runtime/secrets/secret-payload';

/** One family: the secret names it covers and the parser of its payload. */
interface SecretForm {
  /** Secret names of the family start with this (`aws_default`, `aws_audit`). */
  readonly prefix: string;
  /**
   * @param name - the secret's name (`slack_ops`), for a family whose messages say the name checked.
   * @throws SecretInvalidError naming the faulty fields, never their values.
   */
  readonly check: (value: Record<string, unknown>, name: string) => void;
}

/** First match wins: a family whose prefix starts with another's (`aws_org_`, `aws_`) comes first. */
const SECRET_FORMS: readonly SecretForm[] = [
  { prefix: ORG_SECRET_PREFIX, check: (value) => void parseOrgTargetSecret(value) },
  { prefix: 'aws_', check: (value) => void awsSecretPayload(value) },
  {
    prefix: 'slack_',
    check: (value, name) =>
      void (require('./slack/client') as typeof import('./slack/client')).parseSlackSecret(value, name),
  },
  {
    prefix: 'github_',
    check: (value) =>
      void parseSecretPayload(
        value,
        (require('./github/connector') as typeof import('./github/connector')).github.declaration.secret,
      ),
  },
  {
    prefix: 'pagerduty_',
    check: (value) =>
      void parseSecretPayload(
        value,
        (require('./pagerduty/connector') as typeof import('./pagerduty/connector')).pagerduty.declaration
          .secret,
      ),
  },
  {
    prefix: 'crm_',
    check: (value) =>
      void parseSecretPayload(
        value,
        (require('./crm/secret') as typeof import('./crm/secret')).CRM_SECRET_FAMILY.spec,
      ),
  },
  {
    prefix: 'ats_',
    check: (value) =>
      void parseSecretPayload(
        value,
        (require('./ats/secret') as typeof import('./ats/secret')).ATS_SECRET_FAMILY.spec,
      ),
  },
];

/**
 * Checks a secret's parsed value (`parseSecretValue`) against its name's family.
 *
 * @returns `true` when the name belongs to a known family and the value passed;
 *   `false` when no family covers the name (nothing to check against).
 * @throws SecretInvalidError (`secret_invalid`) naming the faulty fields, never their values.
 */
export function checkSecretPayload(secretName: string, value: Record<string, unknown>): boolean {
  const form = SECRET_FORMS.find((candidate) => secretName.startsWith(candidate.prefix));
  if (!form) return false;
  form.check(value, secretName);
  return true;
}

/** The families' prefixes, for messages (`aws_, slack_`). */
export const SECRET_FAMILIES = SECRET_FORMS.map((form) => form.prefix);
