/**
 * A local KMS on 127.0.0.1 that speaks the AWS KMS JSON protocol
 * (`X-Amz-Target: TrentService.<Operation>`, awsJson1_1) for the operations
 * inline secrets use — Encrypt, Decrypt, GenerateDataKey — so the real
 * `@aws-sdk/client-kms` runs against it. No local KMS server ships in the npm
 * registry (LocalStack and local-kms are containers), hence this stand-in.
 *
 * It enforces what KMS itself enforces and the tests rely on:
 * - a ciphertext opens only under the exact encryption context it was made with
 *   (else `InvalidCiphertextException`, as KMS answers);
 * - a changed or truncated ciphertext is `InvalidCiphertextException`;
 * - a disabled key is `DisabledException`, a key pending deletion
 *   `KMSInvalidStateException`, an unknown key `NotFoundException`;
 * - Encrypt takes at most 4,096 bytes of plaintext (`ValidationException`).
 * Who may call what is IAM's part, proved by the simulator tests, not here.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { KMSClient } from '@aws-sdk/client-kms';
import { signingKeyOf } from './local-iam';
import { FAKE_AWS_CREDENTIALS, listenOnLoopback, sendJson } from './loopback-server';

/** The states of a key the tests switch between. */
export type LocalKeyState = 'Enabled' | 'Disabled' | 'PendingDeletion';

/**
 * Who may decrypt, for tests of the deployed path: given the request's signing
 * access key and the encryption context asked, whether the key policy would
 * allow it (false: `AccessDeniedException`). @default everyone
 */
export type DecryptAuthorizer = (accessKeyId: string, context: Readonly<Record<string, string>>) => boolean;

/** A running local KMS. */
export interface LocalKms {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The ARN of its one key. */
  readonly keyArn: string;
  /** A client on {@link endpoint} with fake credentials. */
  readonly client: KMSClient;
  /** Requests received, by operation (`Encrypt`, `Decrypt`, `GenerateDataKey`). */
  readonly calls: string[];
  /** Sets the key's state. */
  setKeyState(state: LocalKeyState): void;
  stop(): Promise<void>;
}

interface KmsRequest {
  readonly KeyId?: string;
  readonly Plaintext?: string;
  readonly CiphertextBlob?: string;
  readonly EncryptionContext?: Record<string, string>;
  readonly KeySpec?: string;
  readonly NumberOfBytes?: number;
}

class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const KEY_ID = '1234abcd-12ab-34cd-56ef-1234567890ab';
const MARKER = Buffer.from('LKMS1');

function contextBytes(context: Record<string, string> | undefined): Buffer {
  const entries = Object.entries(context ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify(entries));
}

/**
 * Starts a local KMS with one symmetric key (alias `alias/etp/inline-secrets`).
 *
 * @example
 * const kms = await startLocalKms();
 * process.env.AWS_ENDPOINT_URL_KMS = kms.endpoint;
 * // …
 * await kms.stop();
 */
export async function startLocalKms(authorizeDecrypt: DecryptAuthorizer = () => true): Promise<LocalKms> {
  const keyArn = `arn:aws:kms:${REGION}:${ACCOUNT}:key/${KEY_ID}`;
  const names = new Set([
    keyArn,
    KEY_ID,
    'alias/etp/inline-secrets',
    `arn:aws:kms:${REGION}:${ACCOUNT}:alias/etp/inline-secrets`,
  ]);
  const material = randomBytes(32);
  let state: LocalKeyState = 'Enabled';
  const calls: string[] = [];

  const usable = (keyId: string | undefined): void => {
    if (keyId !== undefined && !names.has(keyId))
      throw new KmsError('NotFoundException', `Key '${keyId}' does not exist`);
    if (state === 'Disabled') throw new KmsError('DisabledException', `${keyArn} is disabled.`);
    if (state === 'PendingDeletion')
      throw new KmsError('KMSInvalidStateException', `${keyArn} is pending deletion.`);
  };

  const seal = (plaintext: Buffer, context: Record<string, string> | undefined): Buffer => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', material, iv);
    cipher.setAAD(contextBytes(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([MARKER, iv, cipher.getAuthTag(), body]);
  };

  const open = (blob: Buffer, context: Record<string, string> | undefined): Buffer => {
    if (blob.length < MARKER.length + 28 || !blob.subarray(0, MARKER.length).equals(MARKER)) {
      throw new KmsError('InvalidCiphertextException', '');
    }
    const iv = blob.subarray(MARKER.length, MARKER.length + 12);
    const tag = blob.subarray(MARKER.length + 12, MARKER.length + 28);
    try {
      const decipher = createDecipheriv('aes-256-gcm', material, iv);
      decipher.setAAD(contextBytes(context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(blob.subarray(MARKER.length + 28)), decipher.final()]);
    } catch {
      // KMS gives no detail either: a wrong context and a changed ciphertext read alike.
      throw new KmsError('InvalidCiphertextException', '');
    }
  };

  const operations: Record<string, (request: KmsRequest, accessKeyId: string) => Record<string, unknown>> = {
    Encrypt(request) {
      usable(request.KeyId);
      const plaintext = Buffer.from(request.Plaintext ?? '', 'base64');
      if (plaintext.length < 1 || plaintext.length > 4096) {
        throw new KmsError('ValidationException', 'Plaintext must be 1 to 4096 bytes');
      }
      return {
        CiphertextBlob: seal(plaintext, request.EncryptionContext).toString('base64'),
        KeyId: keyArn,
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    GenerateDataKey(request) {
      usable(request.KeyId);
      if (request.KeySpec !== 'AES_256') throw new KmsError('ValidationException', 'KeySpec must be AES_256');
      const plaintext = randomBytes(32);
      return {
        CiphertextBlob: seal(plaintext, request.EncryptionContext).toString('base64'),
        Plaintext: plaintext.toString('base64'),
        KeyId: keyArn,
      };
    },
    Decrypt(request, accessKeyId) {
      if (!authorizeDecrypt(accessKeyId, request.EncryptionContext ?? {})) {
        throw new KmsError(
          'AccessDeniedException',
          `${accessKeyId} is not authorized to perform: kms:Decrypt`,
        );
      }
      usable(request.KeyId);
      const plaintext = open(Buffer.from(request.CiphertextBlob ?? '', 'base64'), request.EncryptionContext);
      return {
        Plaintext: plaintext.toString('base64'),
        KeyId: keyArn,
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
  };

  const server = await listenOnLoopback((request, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.replace(/^TrentService\./, '');
    calls.push(operation);
    const run = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
    if (!run) {
      sendJson(response, 400, { __type: 'UnknownOperationException', message: `${target} is not served` });
      return;
    }
    try {
      sendJson(response, 200, run(JSON.parse(request.body || '{}') as KmsRequest, signingKeyOf(request)));
    } catch (err) {
      if (!(err instanceof KmsError)) throw err;
      sendJson(response, 400, { __type: err.type, message: err.message });
    }
  });

  const client = new KMSClient({
    endpoint: server.url,
    region: REGION,
    credentials: FAKE_AWS_CREDENTIALS,
    maxAttempts: 1,
  });
  return {
    endpoint: server.url,
    keyArn,
    client,
    calls,
    setKeyState(next) {
      state = next;
    },
    async stop() {
      client.destroy();
      await server.stop();
    },
  };
}
