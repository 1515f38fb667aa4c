import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { secretsManagerTagReader } from '../../../functions/console/secret-tags';

const secretsManager = mockClient(SecretsManagerClient);
const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:etp/acme/slack_default-AbCdEf';
const session = async () => ({ accessKeyId: 'ASIAFAKETESTKEY', secretAccessKey: 'fake/test/secret' });

/** An error as the SDK raises it for a refused request. */
function accessDenied(): Error {
  return Object.assign(new Error('User is not authorized to perform: secretsmanager:DescribeSecret'), {
    name: 'AccessDeniedException',
  });
}

beforeEach(() => secretsManager.reset());

describe("the console's secret tag check", () => {
  it("reads the tenant's tags with DescribeSecret", async () => {
    // Prepare
    secretsManager.on(DescribeSecretCommand, { SecretId: ARN }).resolves({
      Tags: [
        { Key: 'etp-tenant', Value: 'acme' },
        { Key: 'etp-secret', Value: 'slack_default' },
      ],
    });

    // Act
    const check = await secretsManagerTagReader(session)(ARN, 'acme', 'slack_default');

    // Assess
    expect(check).toEqual({ status: 'tagged' });
  });

  it("calls a secret the tenant's session may not describe another tenant's", async () => {
    // Prepare
    secretsManager.on(DescribeSecretCommand).rejects(accessDenied());

    // Act
    const deployed = await secretsManagerTagReader(session)(ARN, 'acme', 'slack_default');
    const ownCredentials = await secretsManagerTagReader()(ARN, 'acme', 'slack_default');

    // Assess: only a tenant session's refusal says the secret is not the tenant's
    expect(deployed).toEqual({
      status: 'other',
      detail: "not describable by this tenant's session (tagged for another tenant, or outside etp/)",
    });
    expect(ownCredentials).toEqual({
      status: 'unknown',
      detail: 'DescribeSecret failed (AccessDeniedException)',
    });
  });
});
