import { OrganizationsClient } from '@aws-sdk/client-organizations';
import { STSClient } from '@aws-sdk/client-sts';
import { z } from 'zod/mini';
import { clearAssumedRoleCache } from '../../../functions/runtime/aws/credentials';
import { createToolContext } from '../../../functions/runtime/context';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { defineToolSpec } from '../../../functions/runtime/spec';
import { toolHostServices } from '../../../functions/runtime/tool-host';
import { clientStubs } from '../../helpers/api-call-case';
import { toolInvocation } from '../../helpers/events';
import {
  arrangeOrganizationWorld,
  organizationWorld,
  WORLD_MANAGEMENT_ACCOUNT,
  worldAccountId,
} from '../../helpers/organization-world';

/**
 * `ctx.aws()` of a per-account call (the invocation's `account`): the member role of
 * the level's organization secret, assumed in that account; today's path otherwise.
 */
const spec = defineToolSpec({
  name: 'probe',
  description: 'Reads its AWS access.',
  inputSchema: z.strictObject({}),
  tags: ['aws'],
  requiresSecrets: ['aws_default'],
  sideEffects: 'none',
  iam: [],
});

const { stubs, stubOf } = clientStubs([OrganizationsClient, STSClient]);
const ORG_TARGET = {
  management_role_arn: `arn:aws:iam::${WORLD_MANAGEMENT_ACCOUNT}:role/ExternalToolsPlatformOrganization`,
  external_id: 'org-external-0001',
  member_role_name: 'ExternalToolsPlatformAudit',
};

function services() {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'acme', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'MEMBER_CTX_AWS' },
    { tenant_id: 'acme', secret_name: 'aws_org_prod', ref_kind: 'env', ref_value: 'MEMBER_CTX_ORG' },
  ]);
  process.env.MEMBER_CTX_AWS = JSON.stringify({ region: 'ap-southeast-2' });
  process.env.MEMBER_CTX_ORG = JSON.stringify(ORG_TARGET);
  return toolHostServices(new SecretResolver(store));
}

beforeEach(() => {
  for (const stub of stubs.values()) stub.reset();
  clearAssumedRoleCache();
});
afterAll(() => {
  delete process.env.MEMBER_CTX_AWS;
  delete process.env.MEMBER_CTX_ORG;
});

describe('ctx.aws() of a per-account call', () => {
  it('assumes the member role of the level’s organization secret in the call’s account, attributed', async () => {
    // Prepare
    const calls = arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 3 }));
    const account = worldAccountId(2);
    const ctx = createToolContext(
      spec,
      toolInvocation({
        tenant: 'acme',
        scenario: 'org_audit',
        level: 'collect',
        runId: 'org-run-7',
        callId: 'collect/0',
        account,
        orgSecret: 'aws_org_prod',
      }),
      deadlineIn(5000),
      services(),
    );

    // Act
    const access = await ctx.aws();
    const credentials = await access.credentials();

    // Assess
    expect(access).toMatchObject({
      mode: 'assume_role',
      roleArn: `arn:aws:iam::${account}:role/ExternalToolsPlatformAudit`,
    });
    expect(credentials.accessKeyId).toBe(`ASIAWORLD${account}`);
    expect(calls.assumeRoleInputs).toEqual([
      expect.objectContaining({
        RoleArn: `arn:aws:iam::${account}:role/ExternalToolsPlatformAudit`,
        ExternalId: 'org-external-0001',
        SourceIdentity: 'etp.acme',
        Tags: [
          { Key: 'etp-tenant', Value: 'acme' },
          { Key: 'etp-scenario', Value: 'org_audit' },
          { Key: 'etp-run', Value: 'org-run-7' },
          { Key: 'etp-account', Value: account },
        ],
      }),
    ]);
  });

  it('names the account when its member role refuses the session', async () => {
    // Prepare: the world's last account refuses AssumeRole.
    const account = worldAccountId(1);
    arrangeOrganizationWorld(stubOf, organizationWorld({ accounts: 2, refused: 1 }));
    const ctx = createToolContext(
      spec,
      toolInvocation({ tenant: 'acme', runId: 'org-run-8', account, orgSecret: 'aws_org_prod' }),
      deadlineIn(5000),
      services(),
    );

    // Act / Assess
    await expect((await ctx.aws()).credentials()).rejects.toMatchObject({
      code: 'auth_failed',
      details: { accountId: account },
    });
  });

  it('refuses when the tenant has no such organization secret, never falling back to its own account', async () => {
    // Prepare
    const ctx = createToolContext(
      spec,
      toolInvocation({ tenant: 'acme', runId: 'org-run-9', account: worldAccountId(0) }),
      deadlineIn(5000),
      toolHostServices(
        new SecretResolver(
          new InMemorySecretReferenceStore([
            { tenant_id: 'acme', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'MEMBER_CTX_AWS' },
          ]),
        ),
        { awsFallbackToDefaultChain: true },
      ),
    );

    // Act / Assess
    await expect(ctx.aws()).rejects.toMatchObject({ code: 'secret_not_found' });
  });

  it('keeps today’s path without account: the tenant’s aws_default', async () => {
    // Prepare
    const ctx = createToolContext(
      spec,
      toolInvocation({ tenant: 'acme', orgSecret: 'aws_org_prod' }),
      deadlineIn(5000),
      services(),
    );

    // Act
    const access = await ctx.aws();

    // Assess
    expect(access).toMatchObject({ mode: 'own_role', region: 'ap-southeast-2' });
    await expect(ctx.secret('aws_org_prod')).rejects.toMatchObject({ code: 'internal_error' });
  });
});
