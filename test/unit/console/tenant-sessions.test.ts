import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { consoleTenantCredentials, perTenant } from '../../../functions/console/tenant-sessions';

const sts = mockClient(STSClient);
const ROLE = 'arn:aws:iam::111122223333:role/ExternalToolsPlatform-ConsoleTenantRole';

beforeEach(() => {
  sts.reset();
  sts.on(AssumeRoleCommand).callsFake((input: { RoleSessionName: string }) => ({
    Credentials: {
      AccessKeyId: `ASIA${input.RoleSessionName.length}FAKETESTKEY`,
      SecretAccessKey: 'fake/test/secret',
      SessionToken: 'fake-token',
      Expiration: new Date(Date.now() + 3_600_000),
    },
  }));
});

describe("the console's tenant sessions", () => {
  it('opens one session per tenant of the console tenant role, tagged with the tenant, and keeps it', async () => {
    // Prepare
    const credentials = consoleTenantCredentials(ROLE);

    // Act
    await credentials('acme')();
    await credentials('acme')();
    await credentials('globex')();

    // Assess
    const calls = sts.commandCalls(AssumeRoleCommand).map((call) => call.args[0].input);
    expect(calls).toHaveLength(2);
    expect(calls.map((input) => [input.RoleArn, input.Tags, input.SourceIdentity])).toEqual([
      [ROLE, [{ Key: 'etp-tenant', Value: 'acme' }], 'etp.acme'],
      [ROLE, [{ Key: 'etp-tenant', Value: 'globex' }], 'etp.globex'],
    ]);
  });

  it('fails at init on a variable that is not a role ARN', () => {
    expect(() => consoleTenantCredentials('not-an-arn')).toThrow('CONSOLE_TENANT_ROLE is not a role ARN');
  });

  it("builds a tenant's clients once and keeps each tenant's apart", () => {
    // Prepare
    const built: string[] = [];
    const clientsOf = perTenant((tenant) => {
      built.push(tenant);
      return { tenant };
    });

    // Act
    const first = clientsOf('acme');
    const again = clientsOf('acme');
    const other = clientsOf('globex');

    // Assess
    expect(again).toBe(first);
    expect(other).toEqual({ tenant: 'globex' });
    expect(built).toEqual(['acme', 'globex']);
  });
});
