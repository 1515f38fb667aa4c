/**
 * `etp secrets seed --ref-kind inline`: a tenant's value sealed by the
 * platform's KMS key into the reference row (docs/inline-secrets.md). The value
 * is read from a file or standard input — never from a flag, which shell history
 * and process lists keep — checked against its name's payload forms, encrypted
 * under the context `{tenant, secret_name}`, and only the ciphertext and its
 * fingerprint are written.
 */
import { readFile } from 'node:fs/promises';
import {
  InvalidArgsError,
  PlatformError,
  SecretInvalidError,
  ServiceCallError,
} from '../../functions/runtime/errors';
import { assertIdentifier, SECRET_NAME, TENANT_ID } from '../../functions/runtime/ids';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import {
  INLINE_SECRET_KEY_ALIAS,
  INLINE_VALUE_MAX_BYTES,
  inlineFingerprint,
} from '../../functions/runtime/secrets/inline-blob';
import { parseSecretValue } from '../../functions/runtime/secrets/providers';
import { validateReference } from '../../functions/runtime/secrets/reference';
import { checkSecretPayload, SECRET_FAMILIES } from '../../functions/tools/secret-forms';
import { fileErrorReason } from '../local/option-file';
import { awsSetupHint } from './aws-setup-hint';
import { cliCreatedBy } from './created-by';
import type { CliIo, CliRun } from './io';
import { requireSecretRefsTable } from './options';

export { INLINE_SECRET_KEY_ALIAS };

/** The variable naming the KMS key `seed --ref-kind inline` seals with (the stack output `InlineSecretKeyArn`). */
export const INLINE_KEY_ENV = 'ETP_INLINE_SECRET_KEY';

/** What an inline seed reads from its options. */
export interface InlineSeedOptions {
  readonly tenant: string;
  readonly secretName: string;
  readonly refValue?: string;
  readonly valueFile?: string;
  readonly kmsKeyId?: string;
  readonly notes?: string;
  readonly table?: string;
}

/**
 * The value of `--value-file`: the file's text, or standard input's for `-`.
 * One final line break (what `echo` and editors add) is dropped.
 *
 * @throws InvalidArgsError for a file that cannot be read, an empty value or one over the inline limit.
 */
async function readValue(valueFile: string, io: CliIo): Promise<string> {
  let bytes: Buffer;
  if (valueFile === '-') {
    bytes = await readStream(io.stdin);
  } else {
    try {
      bytes = await readFile(valueFile);
    } catch (err) {
      throw new InvalidArgsError(
        `--value-file ${valueFile}: cannot be read: ${fileErrorReason(err)}; give a readable file, or - for standard input`,
      );
    }
  }
  let text: string;
  try {
    // Fatal: a byte that is not UTF-8 would otherwise become U+FFFD and another value be sealed.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidArgsError(
      `--value-file ${valueFile === '-' ? '- (standard input)' : valueFile} is not UTF-8 text: a secret value is text (JSON or a token)`,
    );
  }
  const value = text.replace(/\r?\n$/, '');
  if (value.trim() === '') {
    throw new InvalidArgsError(
      `--value-file ${valueFile === '-' ? '- (standard input)' : valueFile} holds no value`,
    );
  }
  const size = Buffer.byteLength(value, 'utf8');
  if (size > INLINE_VALUE_MAX_BYTES) {
    throw new InvalidArgsError(
      `the value is ${size} bytes; inline values hold at most ${INLINE_VALUE_MAX_BYTES} bytes: keep it in Secrets Manager (--ref-kind secrets_manager)`,
    );
  }
  return value;
}

async function readStream(stream: NodeJS.ReadableStream | undefined): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    // Read one byte past the limit at most: enough to say the value is too large.
    if (size > INLINE_VALUE_MAX_BYTES + 2) {
      chunks.push(buffer);
      break;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A sealing failure in words that name KMS, its endpoint, the key and what to set
 * (a value over the limit keeps its own message).
 */
function kmsFailure(err: unknown, keyId: string): Error {
  if (!(err instanceof ServiceCallError)) return err as Error;
  const endpoint =
    process.env.AWS_ENDPOINT_URL_KMS ||
    `the KMS endpoint of ${process.env.AWS_REGION || 'your default region'}`;
  // No region or no credentials: the SDK never reached KMS, and the key is not the thing to change.
  const setup = awsSetupHint(err.cause);
  const advice = setup
    ? ` ${setup.charAt(0).toUpperCase()}${setup.slice(1)}`
    : ` Set --kms-key-id or ${INLINE_KEY_ENV} to the platform stack output InlineSecretKeyArn, with credentials ` +
      'allowed kms:Encrypt and kms:GenerateDataKey on it';
  return new PlatformError(
    'upstream_error',
    // The cause in parentheses, not after "<key>:": the redactor reads "inline-secrets: <cause>" as a secret's key and value.
    `KMS (${endpoint}) could not seal with key ${keyId} (${err.message}).${advice}`,
    { service: 'kms', cause: err },
  );
}

/**
 * Whether the value fits its name's family (false: no family covers the name).
 *
 * @throws InvalidArgsError (exit 2) with the family's own words (fields named, never values).
 */
function checkedPayload(secretName: string, value: string): boolean {
  try {
    return checkSecretPayload(secretName, parseSecretValue(value));
  } catch (err) {
    if (!(err instanceof SecretInvalidError)) throw err;
    throw new InvalidArgsError(`the value does not fit ${secretName}: ${err.message}`);
  }
}

/**
 * Seals and writes an inline reference; prints the row's kind and fingerprint, never the value or ciphertext.
 *
 * @throws InvalidArgsError (exit 2) for `--ref-value` (a value on the command line), a missing
 *   `--value-file`, a value its name's form refuses (fields named, never values).
 * @throws the KMS or DynamoDB failure (exit 1) — nothing is written when sealing fails.
 */
export async function seedInline(options: InlineSeedOptions, run: CliRun): Promise<void> {
  const { io } = run;
  if (options.refValue !== undefined) {
    throw new InvalidArgsError(
      '--ref-value is refused with --ref-kind inline: a value on the command line stays in shell history and ' +
        'process lists. Pass --value-file <path>, or --value-file - to read standard input',
    );
  }
  if (options.valueFile === undefined) {
    throw new InvalidArgsError(
      '--value-file is required with --ref-kind inline: a file holding the value, or - for standard input',
    );
  }
  assertIdentifier(TENANT_ID, options.tenant, '--tenant');
  assertIdentifier(SECRET_NAME, options.secretName, '--secret-name');
  const table = requireSecretRefsTable('secrets seed', options.table, io.env);
  const value = await readValue(options.valueFile, io);
  const known = checkedPayload(options.secretName, value);
  const keyId = options.kmsKeyId ?? (io.env[INLINE_KEY_ENV] || INLINE_SECRET_KEY_ALIAS);
  const { kmsClient, sealInlineValue } =
    require('../../functions/runtime/secrets/inline-kms') as typeof import('../../functions/runtime/secrets/inline-kms');
  const kms = kmsClient();
  try {
    const sealed = await sealInlineValue(kms, keyId, options.tenant, options.secretName, value).catch(
      (err: unknown) => {
        throw kmsFailure(err, keyId);
      },
    );
    const row = validateReference({
      tenant_id: options.tenant,
      secret_name: options.secretName,
      ref_kind: 'inline',
      ref_value: sealed.refValue,
      fingerprint: inlineFingerprint(options.tenant, options.secretName, value),
      ...(options.notes !== undefined ? { notes: options.notes } : {}),
      created_by: cliCreatedBy(),
    });
    const saved = await new DynamoDbSecretReferenceStore(table).put(row);
    io.out(
      `Seeded ${saved.tenant_id}/${saved.secret_name} -> inline (sealed by ${keyId}, ${sealed.form === 'kms' ? 'KMS Encrypt' : 'envelope encryption'}), fingerprint ${saved.fingerprint} in table ${table}\n`,
    );
  } finally {
    kms.destroy();
  }
  if (!known) {
    io.err(
      `warning: no payload form is known for secret name ${options.secretName} (families: ${SECRET_FAMILIES.join(', ')}); the value was sealed as given\n`,
    );
  }
}
