import { parseSecretPayload } from '../../../../functions/runtime/secrets/secret-payload';
import { ATS_SECRET_FAMILY } from '../../../../functions/tools/ats/secret';
import { CRM_SECRET_FAMILY } from '../../../../functions/tools/crm/secret';
import { github } from '../../../../functions/tools/github/connector';
import { pagerduty } from '../../../../functions/tools/pagerduty/connector';

/** The one payload checker: single-vendor specs and vendor families, each refusal naming no value. */
describe('parseSecretPayload', () => {
  const TOKEN = 'pat-na1-FAKEtestEXAMPLE0123'; // fake test example

  it("parses a family's payload in any provider's form, and one provider's in its own only", () => {
    expect(parseSecretPayload({ provider: 'attio', token: TOKEN }, CRM_SECRET_FAMILY.spec)).toEqual({
      provider: 'attio',
      token: TOKEN,
    });
    expect(() =>
      parseSecretPayload({ provider: 'attio', token: TOKEN }, CRM_SECRET_FAMILY.provider('hubspot')),
    ).toThrow(/^HubSpot secret crm_default is invalid: provider must be one of hubspot\. Accepted: /);
  });

  it.each([
    [
      { provider: 'pipedrive', token: TOKEN },
      'CRM secret crm_default is invalid: provider must be one of hubspot, attio',
    ],
    [{ token: TOKEN }, 'CRM secret crm_default is invalid: it names no provider (hubspot or attio)'],
    [
      { provider: 'hubspot', token: TOKEN, region: 'eu' },
      'CRM secret crm_default is invalid in: region (unknown field)',
    ],
    [{ value: 'pat-na1-x' }, 'CRM secret crm_default is invalid: it is not a JSON object but plain text'],
  ])('refuses %j: %s', (raw, message) => {
    const attempt = () => parseSecretPayload(raw, CRM_SECRET_FAMILY.spec);
    expect(attempt).toThrow(expect.objectContaining({ code: 'secret_invalid', service: 'crm' }));
    expect(attempt).toThrow(`${message}. Accepted: { "provider": "hubspot"`);
    expect(attempt).not.toThrow(TOKEN);
  });

  it("names a family provider's wrong field, and a single vendor's", () => {
    expect(() =>
      parseSecretPayload({ provider: 'lever', token: TOKEN, user_id: 7 }, ATS_SECRET_FAMILY.spec),
    ).toThrow('ATS secret ats_default is invalid in: user_id (expected a string). Accepted:');
    expect(() => parseSecretPayload({ app_id: 'x' }, github.declaration.secret)).toThrow(
      /^GitHub secret github_default is invalid in: /,
    );
  });

  it.each([
    [{}, 'GitHub', 'token (missing)'],
    [{ token: 123 }, 'GitHub', 'token (expected a string)'],
    [{ app_id: 12 }, 'GitHub', 'private_key (missing), installation_id (missing)'],
    [
      { app_id: 'abc', private_key: '-----BEGIN PRIVATE KEY-----', installation_id: 1 },
      'GitHub',
      'app_id (a GitHub App id: 1-12 digits)',
    ],
    [{ token: 'ghp_FAKEtestEXAMPLE0123456789', username: 'octo' }, 'GitHub', 'username (unknown field)'],
    [{}, 'PagerDuty', 'token (missing)'],
    [{ token: 5 }, 'PagerDuty', 'token (expected a string)'],
    [{ token: 'FAKEtestEXAMPLE0123', region: 'de' }, 'PagerDuty', 'region (one of "us", "eu")'],
    [{ token: 'FAKEtestEXAMPLE0123', frm: 'a@example.com' }, 'PagerDuty', 'frm (unknown field)'],
  ])('names the field of the closest form of a two-form secret and why (%j, %s)', (raw, vendor, fields) => {
    const parse = () =>
      vendor === 'GitHub'
        ? parseSecretPayload(raw, github.declaration.secret)
        : parseSecretPayload(raw, pagerduty.declaration.secret);
    expect(parse).toThrow(`is invalid in: ${fields}. Accepted: `);
  });

  it('says why a value failed its own check and what the check accepts, never the value', () => {
    expect(() => parseSecretPayload({ token: 'short' }, github.declaration.secret)).toThrow(
      'GitHub secret github_default is invalid in: token (a token of 20-255 characters without white space: ghp_…, github_pat_…). Accepted: ',
    );
    expect(() => parseSecretPayload({ provider: 'attio', token: 'tiny' }, CRM_SECRET_FAMILY.spec)).toThrow(
      'CRM secret crm_default is invalid in: token (a token of 8-4096 characters without white space). Accepted: ',
    );
    expect(() =>
      parseSecretPayload({ provider: 'attio', token: 'tiny' }, CRM_SECRET_FAMILY.spec),
    ).not.toThrow(/tiny/);
  });
});
