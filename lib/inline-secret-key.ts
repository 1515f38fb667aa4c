import { RemovalPolicy } from 'aws-cdk-lib';
import { AccountRootPrincipal, type IRole, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { TENANT_TAG } from '../functions/runtime/aws/trust';
import { INLINE_SECRET_KEY_ALIAS } from '../functions/runtime/secrets/inline-blob';
import { compareText } from '../functions/runtime/text';
import { SESSION_TENANT } from './tenant-secret-readers';

/**
 * What the account's administrators may do with the key through IAM: manage it,
 * never use it. Listed one by one — `kms:Create*` would include
 * `kms:CreateGrant`, and a grant could hand `kms:Decrypt` to anyone.
 * (AWS KMS Developer Guide, "Default key policy": "Allows key administrators to
 * administer the KMS key".)
 */
const ADMINISTRATION_ACTIONS = [
  'kms:CancelKeyDeletion',
  'kms:CreateAlias',
  'kms:DeleteAlias',
  'kms:DescribeKey',
  'kms:DisableKey',
  'kms:DisableKeyRotation',
  'kms:EnableKey',
  'kms:EnableKeyRotation',
  'kms:GetKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:ListAliases',
  'kms:ListGrants',
  'kms:ListKeyPolicies',
  'kms:ListKeyRotations',
  'kms:ListResourceTags',
  'kms:PutKeyPolicy',
  'kms:RevokeGrant',
  'kms:RotateKeyOnDemand',
  'kms:ScheduleKeyDeletion',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:UpdateAlias',
  'kms:UpdateKeyDescription',
];

/** Properties of {@link InlineSecretKey}. */
export interface InlineSecretKeyProps {
  /** Each secret name's reader role: the only principals that may decrypt. */
  readonly readers: Readonly<Record<string, IRole>>;
  /** @default RemovalPolicy.RETAIN — deleting the key loses every inline secret. */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The platform's KMS key for `inline` secret references (docs/inline-secrets.md).
 * Its key policy is the whole authorization — it does not delegate `kms:Decrypt`
 * to IAM — so no identity policy of any role (the dispatcher, the engine, a tool
 * role, even one given `kms:*`) can decrypt:
 *
 * - the account may administer the key ({@link ADMINISTRATION_ACTIONS}, no grants);
 * - the account's principals allowed by IAM may `Encrypt` and `GenerateDataKey`
 *   (`etp secrets seed`), only with both context keys `tenant` and `secret_name`;
 * - the reader role of secret name S may `Decrypt` only where
 *   `kms:EncryptionContext:tenant` equals its session's `etp-tenant` tag and
 *   `kms:EncryptionContext:secret_name` is S. A row copied to another tenant is
 *   decrypted under that tenant's context, which the ciphertext does not match.
 *
 * Automatic rotation is on (yearly): old ciphertexts still decrypt.
 */
export class InlineSecretKey extends Construct {
  /** The key. */
  public readonly key: Key;

  constructor(scope: Construct, id: string, props: InlineSecretKeyProps) {
    super(scope, id);
    const account = new AccountRootPrincipal();
    const policy = new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'AdministerWithoutUse',
          principals: [account],
          actions: ADMINISTRATION_ACTIONS,
          resources: ['*'],
        }),
        new PolicyStatement({
          sid: 'SealInlineSecrets',
          principals: [account],
          actions: ['kms:Encrypt', 'kms:GenerateDataKey'],
          resources: ['*'],
          conditions: {
            Null: { 'kms:EncryptionContext:tenant': 'false', 'kms:EncryptionContext:secret_name': 'false' },
          },
        }),
        ...Object.entries(props.readers)
          .sort(([a], [b]) => compareText(a, b))
          .map(
            ([name, role]) =>
              new PolicyStatement({
                sid: `Open${name.replace(/[^A-Za-z0-9]/g, '')}OfSessionTenant`,
                principals: [role],
                actions: ['kms:Decrypt'],
                resources: ['*'],
                conditions: {
                  Null: { [`aws:PrincipalTag/${TENANT_TAG}`]: 'false' },
                  StringEquals: {
                    'kms:EncryptionContext:tenant': SESSION_TENANT,
                    'kms:EncryptionContext:secret_name': name,
                  },
                },
              }),
          ),
      ],
    });
    this.key = new Key(this, 'Key', {
      description: 'Encrypts inline secret references; only tenant-tagged reader sessions decrypt (etp)',
      alias: INLINE_SECRET_KEY_ALIAS,
      enableKeyRotation: true,
      policy,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }
}
