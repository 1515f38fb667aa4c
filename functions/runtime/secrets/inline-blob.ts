/**
 * The text an `inline` secret reference keeps in its `ref_value`: a KMS
 * ciphertext, never the value (docs/inline-secrets.md). A leaf module — no SDK —
 * so validating a row (the table's writers, `etp secrets list`) costs nothing.
 *
 * Two forms, chosen by the value's size:
 * - `etp-inline.v1.kms.<CiphertextBlob>`: the value encrypted by KMS itself
 *   (`Encrypt`), for values up to {@link KMS_ENCRYPT_MAX_BYTES};
 * - `etp-inline.v1.envelope.<encrypted data key>.<iv>.<ciphertext+tag>`:
 *   envelope encryption for larger values — a data key from KMS
 *   `GenerateDataKey` (AES-256), the value sealed with AES-256-GCM under it, the
 *   encryption context as the additional authenticated data.
 * Every part is base64url without padding. Either way, only KMS `Decrypt` under
 * the same encryption context gives the value back.
 */
import { createHash } from 'node:crypto';
import { SecretInvalidError } from '../errors';

/** The alias the platform stack gives its inline-secret key (lib/inline-secret-key.ts); `etp secrets seed`'s default. */
export const INLINE_SECRET_KEY_ALIAS = 'alias/etp/inline-secrets';

/** The largest plaintext KMS `Encrypt` takes: 4,096 bytes (AWS KMS API Reference, "Encrypt", Plaintext). */
export const KMS_ENCRYPT_MAX_BYTES = 4096;

/**
 * The largest inline value, in bytes of UTF-8: 64 KiB. Our limit, chosen well
 * under DynamoDB's 400 KB item size (Amazon DynamoDB Developer Guide, "Service,
 * account, and table quotas": item size), which must also hold the base64
 * expansion (4/3) and the row's other attributes. Larger values belong in
 * Secrets Manager (64 KiB is also its SecretString limit).
 */
export const INLINE_VALUE_MAX_BYTES = 65_536;

/** AES-256-GCM nonce length, bytes (NIST SP 800-38D recommends 96 bits). */
export const GCM_IV_BYTES = 12;
/** AES-256-GCM authentication tag length, bytes. */
export const GCM_TAG_BYTES = 16;

const PREFIX = 'etp-inline.v1.';
const PART = '[A-Za-z0-9_-]+';
const KMS_FORM = new RegExp(`^etp-inline\\.v1\\.kms\\.(${PART})$`);
const ENVELOPE_FORM = new RegExp(`^etp-inline\\.v1\\.envelope\\.(${PART})\\.(${PART})\\.(${PART})$`);

/**
 * The KMS encryption context of a tenant's inline secret: `{ tenant, secret_name }`.
 * The key policy lets a reader session decrypt only where `tenant` equals its
 * session tag and `secret_name` is its reader's name, so a blob copied to
 * another tenant's row (or name) no longer decrypts.
 */
export interface InlineEncryptionContext {
  readonly tenant: string;
  readonly secret_name: string;
  readonly [key: string]: string;
}

/** The encryption context of `(tenant, secretName)`. */
export function inlineEncryptionContext(tenant: string, secretName: string): InlineEncryptionContext {
  return { tenant, secret_name: secretName };
}

/**
 * The context as additional authenticated data of the envelope form: JSON of
 * its entries in key order, so the same context always gives the same bytes.
 */
export function contextAad(context: InlineEncryptionContext): Buffer {
  const entries = Object.keys(context)
    .sort()
    .map((key) => [key, context[key]]);
  return Buffer.from(JSON.stringify(entries), 'utf8');
}

/** A parsed blob. */
export type InlineBlob =
  | { readonly form: 'kms'; readonly ciphertextBlob: Uint8Array }
  | {
      readonly form: 'envelope';
      readonly encryptedDataKey: Uint8Array;
      readonly iv: Uint8Array;
      /** The AES-256-GCM ciphertext followed by its {@link GCM_TAG_BYTES}-byte tag. */
      readonly sealed: Uint8Array;
    };

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** The `ref_value` text of a blob. */
export function formatInlineBlob(blob: InlineBlob): string {
  return blob.form === 'kms'
    ? `${PREFIX}kms.${b64(blob.ciphertextBlob)}`
    : `${PREFIX}envelope.${b64(blob.encryptedDataKey)}.${b64(blob.iv)}.${b64(blob.sealed)}`;
}

/** Whether `text` has the shape of an inline blob (says nothing of whether it decrypts). */
export function isInlineBlobText(text: string): boolean {
  return parseInlineBlobOrUndefined(text) !== undefined;
}

function parseInlineBlobOrUndefined(text: string): InlineBlob | undefined {
  const kms = KMS_FORM.exec(text);
  if (kms) return { form: 'kms', ciphertextBlob: Buffer.from(kms[1] as string, 'base64url') };
  const envelope = ENVELOPE_FORM.exec(text);
  if (!envelope) return undefined;
  const iv = Buffer.from(envelope[2] as string, 'base64url');
  const sealed = Buffer.from(envelope[3] as string, 'base64url');
  if (iv.length !== GCM_IV_BYTES || sealed.length < GCM_TAG_BYTES) return undefined;
  return { form: 'envelope', encryptedDataKey: Buffer.from(envelope[1] as string, 'base64url'), iv, sealed };
}

/** What an inline `ref_value` must look like, in words (errors and docs). */
export const INLINE_BLOB_RULE =
  'the ciphertext etp secrets seed --ref-kind inline writes (etp-inline.v1.kms.… or etp-inline.v1.envelope.…)';

/**
 * Parses the `ref_value` of an inline reference.
 *
 * @throws SecretInvalidError (`secret_invalid`) naming the reference, never the
 *   text: a blob cut short or changed by hand so that it no longer has either form.
 */
export function parseInlineBlob(text: string, tenant: string, secretName: string): InlineBlob {
  const blob = parseInlineBlobOrUndefined(text);
  if (blob) return blob;
  throw new SecretInvalidError(
    `Inline secret "${secretName}" of tenant "${tenant}" is not a well-formed ciphertext (truncated or edited?): ` +
      `its ref_value must be ${INLINE_BLOB_RULE}. Seed it again`,
  );
}

/**
 * The fingerprint `etp secrets list` shows for an inline value: the first 16 hex
 * digits of SHA-256 over the tenant, the name and the value. It tells whether
 * two seedings hold the same value (`etp secrets fingerprint` computes it from a
 * file) without showing it; tenant and name are hashed in so the same value of
 * two tenants does not read alike. A fingerprint confirms a guess, as any hash
 * does: fine for tokens and keys (high entropy), the values inline references hold.
 *
 * @example inlineFingerprint('acme', 'slack_default', '{"bot_token":"xoxb-…"}') // 'sha256:3f0c…' (16 hex digits)
 */
export function inlineFingerprint(tenant: string, secretName: string, value: string): string {
  const digest = createHash('sha256')
    .update('etp-inline-fingerprint\u0000')
    .update(tenant)
    .update('\u0000')
    .update(secretName)
    .update('\u0000')
    .update(value)
    .digest('hex');
  return `sha256:${digest.slice(0, 16)}`;
}

/** What a fingerprint looks like. */
export const FINGERPRINT = /^sha256:[0-9a-f]{16}$/;
