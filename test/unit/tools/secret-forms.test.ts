import { checkSecretPayload, SECRET_FAMILIES } from '../../../functions/tools/secret-forms';

/**
 * The payload forms `etp secrets seed --ref-kind inline` checks a value against:
 * each family's own parser (docs/inline-secrets.md). One accepted and one refused
 * example per family; a family added without examples fails the first test.
 */
const EXAMPLES: Readonly<
  Record<string, { accepted: Record<string, unknown>; refused: Record<string, unknown> }>
> = {
  aws_org_: {
    accepted: {
      management_role_arn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformOrganization',
      external_id: 'ext-0123456789',
      member_role_name: 'ExternalToolsPlatformAudit',
    },
    refused: { role_arn: 'arn:aws:iam::111122223333:role/ExternalToolsPlatformAudit' },
  },
  aws_: { accepted: { region: 'eu-west-1' }, refused: { role_arn: 'not-an-arn' } },
  slack_: {
    accepted: { webhook_url: 'https://hooks.slack.com/services/T0/B0/x' },
    refused: { webhook_url: 'nope' },
  },
  github_: { accepted: { token: 'ghp_0123456789abcdef0123456789abcdef0123' }, refused: { app_id: 'x' } },
  pagerduty_: { accepted: { token: 'y_NbAkKc66ryYTWUXYEu' }, refused: { from: 'ops@example.com' } },
  crm_: {
    accepted: { provider: 'attio', token: 'attio-token-0123456789' },
    refused: { provider: 'salesforce', token: 'x'.repeat(12) },
  },
  ats_: { accepted: { provider: 'lever', token: 'lever-key-0123456789' }, refused: { provider: 'lever' } },
};

describe('checkSecretPayload', () => {
  it('has an example for every family it checks', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...SECRET_FAMILIES].sort());
  });

  it.each(Object.entries(EXAMPLES))('accepts a %s value of a documented form', (prefix, { accepted }) => {
    expect(checkSecretPayload(`${prefix}default`, accepted)).toBe(true);
  });

  it.each(Object.entries(EXAMPLES))(
    'refuses a %s value its parser refuses, naming no value',
    (prefix, { refused }) => {
      // Act
      const attempt = () => checkSecretPayload(`${prefix}default`, refused);

      // Assess
      expect(attempt).toThrow(expect.objectContaining({ code: 'secret_invalid' }));
    },
  );

  it('checks an aws_org_ name against the organization form, not the aws_ one', () => {
    // Act: a valid aws_ value under an organization name, and the other way round.
    const awsUnderOrg = () => checkSecretPayload('aws_org_default', { region: 'eu-west-1' });
    const orgUnderAws = () => checkSecretPayload('aws_default', EXAMPLES.aws_org_?.accepted ?? {});

    // Assess
    expect(awsUnderOrg).toThrow(
      /AWS organization secret is invalid in: management_role_arn \(missing\), member_role_name \(missing\)/,
    );
    expect(orgUnderAws).toThrow(
      /AWS secret is invalid in: management_role_arn \(unknown field\), external_id \(unknown field\), member_role_name \(unknown field\)/,
    );
  });

  it.each([
    [
      'slack_default',
      { bot_tokn: 'x' },
      ' in: (value) (bot_token or webhook_url is required), bot_tokn (unknown field)',
    ],
    [
      'slack_ops',
      { webhook_url: 'nope' },
      ' in: webhook_url (an http(s) URL: the incoming webhook URL Slack gives)',
    ],
    ['slack_ops', { value: 'plain words' }, ': it is not a JSON object but plain text'],
  ])(
    'names the Slack secret it checked (%s), as the GitHub and PagerDuty messages do',
    (name, value, problem) => {
      // Act
      const attempt = () => checkSecretPayload(name, value);

      // Assess
      expect(attempt).toThrow(
        `Slack secret ${name} is invalid${problem}. Accepted: { "bot_token": "xoxb-…" } and/or { "webhook_url": "https://hooks.slack.com/…" }`,
      );
    },
  );

  it('has nothing to check for a name of no family', () => {
    expect(checkSecretPayload('billing_default', { anything: 1 })).toBe(false);
  });
});
