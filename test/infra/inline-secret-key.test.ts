import { Match } from 'aws-cdk-lib/assertions';
import { toolCatalog } from '../../functions/tools/catalog';
import { logicalIdOf, synthesizePlatform } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
} from '../helpers/iam-simulation';

/**
 * The inline-secret key's policy PROVED on the synthesized template with an IAM
 * policy simulator (@cloud-copilot/iam-simulate, which models KMS's rule that a
 * key policy must allow — or delegate to — a principal): only a reader session
 * decrypts, only its own tenant's values of its own secret name, and no other
 * role of the stack can decrypt by any identity policy. docs/inline-secrets.md.
 */
const PLATFORM = '123456789012';
const secretNames = [
  ...new Set(toolCatalog.functionTools().flatMap((entry) => entry.spec.requiresSecrets)),
].sort();
const REGION = 'eu-west-1';

let platform: ResolvedTemplate;
let keyArn: string;
let keyPolicy: unknown;
let readers: Record<string, string>;
let otherRoles: string[];

beforeAll(() => {
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: PLATFORM, region: REGION });
  const keyId = logicalIdOf(stack.platform.inlineSecretKey);
  keyArn = arnIn(platform, keyId);
  keyPolicy = platform.resources[keyId]?.Properties.KeyPolicy;
  readers = Object.fromEntries(
    Object.entries(stack.platform.secretReaders.roles).map(([name, role]) => [name, logicalIdOf(role)]),
  );
  const readerIds = new Set(Object.values(readers));
  otherRoles = Object.entries(platform.resources)
    .filter(([id, resource]) => resource.Type === 'AWS::IAM::Role' && !readerIds.has(id))
    .map(([id]) => id);
});

/** A session of a role of the template, with its identity policies. */
function sessionOfRole(roleId: string, tenant?: string) {
  const arn = arnIn(platform, roleId);
  return {
    arn,
    session: sessionOf(arn, tenant ? `etp-${tenant}` : 'call'),
    policies: identityPoliciesOf(platform, roleId),
    tags: (tenant ? { 'aws:PrincipalTag/etp-tenant': tenant } : {}) as Record<string, string>,
  };
}

async function kmsDecision(
  caller: { arn: string; session: string; policies: readonly NamedPolicy[]; tags: Record<string, string> },
  action: string,
  context: Record<string, string | string[]>,
): Promise<string> {
  return decide({
    principal: caller.session,
    identityPolicies: caller.policies,
    action,
    resource: keyArn,
    resourceAccount: PLATFORM,
    resourcePolicy: keyPolicy,
    // kms:EncryptionContext:<key> is a variable key the simulator's checked path drops.
    unvalidatedContext: true,
    context: { 'aws:PrincipalArn': caller.arn, 'aws:PrincipalAccount': PLATFORM, ...caller.tags, ...context },
  });
}

const contextOf = (tenant: string, secretName: string) => ({
  'kms:EncryptionContext:tenant': tenant,
  'kms:EncryptionContext:secret_name': secretName,
  'kms:EncryptionContextKeys': ['tenant', 'secret_name'],
});

describe('the inline-secret key', () => {
  it('is a rotating symmetric key kept on stack deletion, with the alias etp secrets seed defaults to', () => {
    // Prepare
    const { template } = synthesizePlatform();

    // Assess
    template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({ EnableKeyRotation: true }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/etp/inline-secrets' });
    template.hasOutput('InlineSecretKeyArn', {});
  });

  it('grants the account no kms:Decrypt, no grants and no wildcard use', () => {
    // Prepare
    const statements = (
      keyPolicy as { Statement: { Sid?: string; Action: string | string[]; Principal: unknown }[] }
    ).Statement;

    // Assess
    const rootActions = statements
      .filter((statement) => JSON.stringify(statement.Principal).includes(':root'))
      .flatMap((statement) => [statement.Action].flat());
    expect(rootActions).not.toContain('kms:Decrypt');
    expect(rootActions).not.toContain('kms:CreateGrant');
    expect(rootActions.filter((action) => action.includes('*'))).toEqual([]);
  });

  describe.each(secretNames)('the %s reader', (name) => {
    it('decrypts a value of the tenant its session is tagged with, sealed for its own name', async () => {
      // Act
      const decision = await kmsDecision(
        sessionOfRole(readers[name] as string, 'acme'),
        'kms:Decrypt',
        contextOf('acme', name),
      );

      // Assess
      expect(decision).toBe('Allowed');
    });

    it.each([
      ['a row copied from another tenant (its context names globex)', 'globex', name],
      ['a value sealed for another secret name', 'acme', 'some_other_name'],
    ])('refuses %s', async (_, tenant, secretName) => {
      // Act
      const decision = await kmsDecision(
        sessionOfRole(readers[name] as string, 'acme'),
        'kms:Decrypt',
        contextOf(tenant, secretName),
      );

      // Assess
      expect(decision).not.toBe('Allowed');
    });

    it('refuses a session without the tenant tag', async () => {
      // Act
      const decision = await kmsDecision(
        sessionOfRole(readers[name] as string),
        'kms:Decrypt',
        contextOf('acme', name),
      );

      // Assess
      expect(decision).not.toBe('Allowed');
    });
  });

  it('has a reader statement for every reader role, and only those decrypt', () => {
    // Prepare
    const decryptors = (
      keyPolicy as { Statement: { Action: string | string[]; Principal: { AWS?: unknown } }[] }
    ).Statement.filter((statement) => [statement.Action].flat().includes('kms:Decrypt')).map(
      (statement) => statement.Principal.AWS,
    );

    // Assess
    expect(decryptors.sort()).toEqual(
      Object.values(readers)
        .map((id) => arnIn(platform, id))
        .sort(),
    );
  });

  it('refuses kms:Decrypt to every other role of the stack (dispatcher, engine, every tool), whatever the context', async () => {
    // Act
    const decisions = await Promise.all(
      otherRoles.map(async (roleId) => [
        roleId,
        await kmsDecision(sessionOfRole(roleId, 'acme'), 'kms:Decrypt', contextOf('acme', 'slack_default')),
      ]),
    );

    // Assess
    expect(otherRoles.length).toBeGreaterThan(Object.keys(readers).length);
    expect(decisions.filter(([, decision]) => decision === 'Allowed')).toEqual([]);
  });

  it('refuses kms:Decrypt even to a role whose identity policy allows kms:* (the key policy does not delegate it)', async () => {
    // Prepare
    const widened = {
      arn: `arn:aws:iam::${PLATFORM}:role/etp-tools/widened`,
      session: `arn:aws:sts::${PLATFORM}:assumed-role/widened/call`,
      policies: [
        {
          name: 'everything',
          policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'kms:*', Resource: '*' }] },
        },
      ],
      tags: { 'aws:PrincipalTag/etp-tenant': 'acme' },
    };

    // Act
    const [decrypt, encrypt] = await Promise.all([
      kmsDecision(widened, 'kms:Decrypt', contextOf('acme', 'slack_default')),
      kmsDecision(widened, 'kms:Encrypt', contextOf('acme', 'slack_default')),
    ]);

    // Assess: sealing is delegated to IAM, opening is not.
    expect({ decrypt, encrypt }).toEqual({ decrypt: 'ImplicitlyDenied', encrypt: 'Allowed' });
  });

  it('lets an operator allowed by IAM seal only with both context keys', async () => {
    // Prepare
    const operator = {
      arn: `arn:aws:iam::${PLATFORM}:role/ops`,
      session: `arn:aws:sts::${PLATFORM}:assumed-role/ops/alice`,
      policies: [
        {
          name: 'seal',
          policy: {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Action: ['kms:Encrypt', 'kms:GenerateDataKey'], Resource: keyArn },
            ],
          },
        },
      ],
      tags: {},
    };

    // Act
    const [withContext, withoutContext] = await Promise.all([
      kmsDecision(operator, 'kms:GenerateDataKey', contextOf('acme', 'slack_default')),
      kmsDecision(operator, 'kms:Encrypt', {}),
    ]);

    // Assess
    expect({ withContext, withoutContext }).toEqual({
      withContext: 'Allowed',
      withoutContext: 'ImplicitlyDenied',
    });
  });
});
