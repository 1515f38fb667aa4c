/**
 * `ref_kind: inline` — the value kept in the reference row, encrypted by the
 * platform's KMS key under the encryption context `{ tenant, secret_name }`
 * (docs/inline-secrets.md). Sealing (`etp secrets seed`) and opening (the
 * resolver) live here together because they are one format: inline-blob.ts.
 *
 * Why not the AWS Encryption SDK: its messages add an ECDSA signing key to the
 * encryption context by default and its keyrings load several packages into
 * every function that resolves secrets (cold start); what we need is KMS
 * `Encrypt`/`Decrypt` for small values and, past KMS's 4 KiB, one data key from
 * `GenerateDataKey` with Node's own AES-256-GCM — composition of two well-kept
 * libraries, no cryptography of our own.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  KMSClient,
  KMSServiceException,
} from '@aws-sdk/client-kms';
import type { AwsCredentialIdentityProvider } from '@aws-sdk/types';
import { awsRequestHandler } from '../aws/http-timeouts';
import { LimitExceededError, PlatformError, SecretInvalidError, ServiceCallError } from '../errors';
import {
  contextAad,
  formatInlineBlob,
  GCM_IV_BYTES,
  GCM_TAG_BYTES,
  INLINE_VALUE_MAX_BYTES,
  type InlineBlob,
  type InlineEncryptionContext,
  inlineEncryptionContext,
  KMS_ENCRYPT_MAX_BYTES,
  parseInlineBlob,
} from './inline-blob';
import type { SecretReference } from './reference';
import type { SecretValueProvider } from './value-provider';

/**
 * A KMS client with the platform's HTTP timeouts, signing with `credentials` (a
 * tenant's reader session) or the default chain. Endpoint from the SDK's own
 * `AWS_ENDPOINT_URL_KMS` (tests point it at a local KMS).
 */
export function kmsClient(credentials?: AwsCredentialIdentityProvider): KMSClient {
  return new KMSClient({ ...(credentials ? { credentials } : {}), requestHandler: awsRequestHandler() });
}

/** What {@link sealInlineValue} returns: the row's `ref_value` and the form chosen. */
export interface SealedInlineValue {
  readonly refValue: string;
  readonly form: InlineBlob['form'];
}

/**
 * Encrypts a tenant's secret value for an inline reference: KMS `Encrypt` up to
 * 4,096 bytes, else envelope encryption (`GenerateDataKey` AES_256 + AES-256-GCM,
 * the context as AAD). The plaintext data key is zeroed once used.
 *
 * @param keyId - the platform's inline-secret key (ARN, key id or alias).
 * @throws LimitExceededError (`limit_exceeded`) for a value over {@link INLINE_VALUE_MAX_BYTES}.
 * @throws ServiceCallError(`kms`) when KMS refuses (the caller may not encrypt, the key is disabled…).
 * @example await sealInlineValue(kmsClient(), 'alias/etp/inline-secrets', 'acme', 'slack_default', '{"bot_token":"xoxb-…"}')
 */
export async function sealInlineValue(
  kms: KMSClient,
  keyId: string,
  tenant: string,
  secretName: string,
  value: string,
): Promise<SealedInlineValue> {
  const plaintext = Buffer.from(value, 'utf8');
  if (plaintext.length > INLINE_VALUE_MAX_BYTES) {
    throw new LimitExceededError(
      `The value for inline secret "${secretName}" of tenant "${tenant}" is ${plaintext.length} bytes; inline ` +
        `values hold at most ${INLINE_VALUE_MAX_BYTES} bytes. Keep larger values in Secrets Manager (--ref-kind secrets_manager)`,
    );
  }
  const context = inlineEncryptionContext(tenant, secretName);
  try {
    if (plaintext.length <= KMS_ENCRYPT_MAX_BYTES) {
      const { CiphertextBlob } = await kms.send(
        new EncryptCommand({ KeyId: keyId, Plaintext: plaintext, EncryptionContext: context }),
      );
      if (!CiphertextBlob) throw new Error('KMS Encrypt returned no CiphertextBlob');
      return { refValue: formatInlineBlob({ form: 'kms', ciphertextBlob: CiphertextBlob }), form: 'kms' };
    }
    const dataKey = await kms.send(
      new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (!dataKey.Plaintext || !dataKey.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
    const iv = randomBytes(GCM_IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', dataKey.Plaintext, iv, { authTagLength: GCM_TAG_BYTES });
    cipher.setAAD(contextAad(context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    dataKey.Plaintext.fill(0);
    const blob: InlineBlob = { form: 'envelope', encryptedDataKey: dataKey.CiphertextBlob, iv, sealed };
    return { refValue: formatInlineBlob(blob), form: 'envelope' };
  } catch (err) {
    if (err instanceof LimitExceededError) throw err;
    throw new ServiceCallError('kms', err);
  }
}

/**
 * Decrypts an inline reference's value (`ref_value`), under the context of the
 * row's own tenant and name: a blob copied to another row fails here.
 *
 * @throws SecretInvalidError (`secret_invalid`) naming the reference, never the value: a
 *   malformed, tampered or truncated blob, or one sealed for another tenant or name.
 * @throws PlatformError (`access_denied`) when the platform's key is disabled or pending
 *   deletion (the message says how to recover).
 * @throws ServiceCallError(`kms`) for other KMS failures (access denied, throttling, network).
 */
export async function openInlineValue(kms: KMSClient, reference: SecretReference): Promise<string> {
  const { tenant_id: tenant, secret_name: secretName } = reference;
  const blob = parseInlineBlob(reference.ref_value, tenant, secretName);
  const context = inlineEncryptionContext(tenant, secretName);
  const ciphertext = blob.form === 'kms' ? blob.ciphertextBlob : blob.encryptedDataKey;
  let plaintext: Uint8Array;
  try {
    const decrypted = await kms.send(
      new DecryptCommand({ CiphertextBlob: ciphertext, EncryptionContext: context }),
    );
    if (!decrypted.Plaintext) throw new Error('KMS Decrypt returned no Plaintext');
    plaintext = decrypted.Plaintext;
  } catch (err) {
    throw decryptError(err, reference);
  }
  if (blob.form === 'kms') return Buffer.from(plaintext).toString('utf8');
  return openEnvelope(blob, plaintext, context, reference);
}

function openEnvelope(
  blob: Extract<InlineBlob, { form: 'envelope' }>,
  dataKey: Uint8Array,
  context: InlineEncryptionContext,
  reference: SecretReference,
): string {
  try {
    const tagAt = blob.sealed.length - GCM_TAG_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', dataKey, blob.iv, { authTagLength: GCM_TAG_BYTES });
    decipher.setAAD(contextAad(context));
    decipher.setAuthTag(blob.sealed.subarray(tagAt));
    return Buffer.concat([decipher.update(blob.sealed.subarray(0, tagAt)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw tampered(reference);
  } finally {
    dataKey.fill(0);
  }
}

function tampered(reference: SecretReference): SecretInvalidError {
  return new SecretInvalidError(
    `Inline secret "${reference.secret_name}" of tenant "${reference.tenant_id}" cannot be decrypted: its ` +
      'ciphertext was changed or cut short, or it was sealed for another tenant or secret name (the encryption ' +
      'context does not match). Seed it again for this tenant and name',
    { service: 'kms' },
  );
}

/** A KMS failure of Decrypt, in words that name the reference (never the value). */
function decryptError(err: unknown, reference: SecretReference): Error {
  const name = err instanceof KMSServiceException ? err.name : (err as { name?: unknown } | null)?.name;
  const which = `inline secret "${reference.secret_name}" of tenant "${reference.tenant_id}"`;
  switch (name) {
    case 'InvalidCiphertextException':
    case 'IncorrectKeyException':
      return tampered(reference);
    case 'DisabledException':
      return new PlatformError(
        'access_denied',
        `The KMS key that encrypts ${which} is disabled: enable it (aws kms enable-key) to read inline secrets again`,
        { service: 'kms', cause: err },
      );
    case 'KMSInvalidStateException':
      return new PlatformError(
        'access_denied',
        `The KMS key that encrypts ${which} cannot decrypt in its current state (pending deletion or pending ` +
          'import): cancel the deletion (aws kms cancel-key-deletion) and enable the key, or seed the secret again',
        { service: 'kms', cause: err },
      );
    case 'NotFoundException':
      return new SecretInvalidError(
        `The KMS key that encrypted ${which} no longer exists: seed the secret again with the platform's key`,
        { service: 'kms', cause: err },
      );
    default:
      return new ServiceCallError('kms', err);
  }
}

/**
 * The inline provider of local runs and the CLI: one KMS client on the default
 * credential chain, created on first use.
 */
export class InlineSecretProvider implements SecretValueProvider {
  #kms: KMSClient | undefined;

  /** @param createClient - the KMS client. @default {@link kmsClient} */
  constructor(private readonly createClient: () => KMSClient = () => kmsClient()) {}

  read(reference: SecretReference): Promise<string> {
    this.#kms ??= this.createClient();
    return openInlineValue(this.#kms, reference);
  }
}
