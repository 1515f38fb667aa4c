/**
 * `etp secrets seed --ref-kind inline` and `etp secrets list` against dynalite and
 * the local KMS stand-in: the value comes from a file or standard input, never a
 * flag; only ciphertext and fingerprint reach the table and the terminal.
 */
// See test/unit/cli/run-etp.ts: commander is ESM-only; Node's own loader gives it to the CLI.
jest.mock('commander', () => require('node:module')._load(require.resolve('commander'), null, false));

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbSecretReferenceStore } from '../../../functions/runtime/secrets/dynamodb-store';
import { inlineFingerprint } from '../../../functions/runtime/secrets/inline-blob';
import { InlineSecretProvider } from '../../../functions/runtime/secrets/inline-kms';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { createSecretReferenceTable, type LocalDynamoDb, startDynalite } from '../../helpers/dynalite';
import { type LocalKms, startLocalKms } from '../../helpers/local-kms';
import { FAKE_AWS_CREDENTIALS } from '../../helpers/loopback-server';
import { etp as runEtp } from '../../unit/cli/run-etp';

const TABLE = 'etp-secret-references';
const VALUE = '{"bot_token":"xoxb-2222222222-3333333333333-AbCdEfGhIjKlMnOpQrStUvWx"}';

let dynamo: LocalDynamoDb;
let kms: LocalKms;
let store: DynamoDbSecretReferenceStore;
let dir: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  [dynamo, kms] = await Promise.all([startDynalite(), startLocalKms()]);
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_KMS: kms.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
  });
  dir = mkdtempSync(path.join(tmpdir(), 'etp-inline-'));
});

beforeEach(async () => {
  await createSecretReferenceTable(dynamo.client, TABLE).catch(() => undefined);
  store = new DynamoDbSecretReferenceStore(TABLE, dynamo.client);
  for (const row of await store.list()) await store.delete(row.tenant_id, row.secret_name);
  kms.calls.length = 0;
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  rmSync(dir, { recursive: true, force: true });
  await Promise.all([dynamo.stop(), kms.stop()]);
});

/** `etp <argv>` in process, the table and key named, with `stdin` as standard input. */
const etp = (argv: readonly string[], stdin: string | Buffer = '') =>
  runEtp(argv, { ETP_SECRET_REFS_TABLE: TABLE, ETP_INLINE_SECRET_KEY: kms.keyArn }, stdin);

const SEED = [
  'secrets',
  'seed',
  '--tenant',
  'acme',
  '--secret-name',
  'slack_default',
  '--ref-kind',
  'inline',
];

async function rowCount(): Promise<number> {
  const { Count } = await dynamo.client.send(new ScanCommand({ TableName: TABLE, Select: 'COUNT' }));
  return Count ?? -1;
}

describe('etp secrets seed --ref-kind inline', () => {
  it('seals a value read from a file; the row and the output hold ciphertext and fingerprint only', async () => {
    // Prepare: the file ends with the line break editors add.
    const file = path.join(dir, 'slack.json');
    writeFileSync(file, `${VALUE}\n`);

    // Act
    const { code, out, err } = await etp([...SEED, '--value-file', file, '--notes', 'ops workspace']);

    // Assess
    const fingerprint = inlineFingerprint('acme', 'slack_default', VALUE);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toBe(
      `Seeded acme/slack_default -> inline (sealed by ${kms.keyArn}, KMS Encrypt), fingerprint ${fingerprint} in table ${TABLE}\n`,
    );
    const row = await store.get('acme', 'slack_default');
    expect(row).toMatchObject({ ref_kind: 'inline', fingerprint, notes: 'ops workspace' });
    expect(JSON.stringify(row)).not.toContain('xoxb');
    const resolver = new SecretResolver(store, {
      providers: { inline: new InlineSecretProvider(() => kms.client) },
    });
    expect(await resolver.resolve('acme', 'slack_default')).toEqual(JSON.parse(VALUE));
  });

  it('reads the value from standard input with --value-file -', async () => {
    // Act
    const { code } = await etp([...SEED, '--value-file', '-'], VALUE);

    // Assess
    expect(code).toBe(0);
    expect((await store.get('acme', 'slack_default'))?.fingerprint).toBe(
      inlineFingerprint('acme', 'slack_default', VALUE),
    );
  });

  it('lists the kind and the fingerprint, never the value or the ciphertext', async () => {
    // Prepare
    await etp([...SEED, '--value-file', '-'], VALUE);
    const row = await store.get('acme', 'slack_default');

    // Act
    const { code, out } = await etp(['secrets', 'list', '--tenant', 'acme']);

    // Assess
    expect(code).toBe(0);
    expect(out.split('\n')[2]?.split(/ {2,}/).slice(0, 4)).toEqual([
      'acme',
      'slack_default',
      'inline',
      `encrypted, fingerprint ${inlineFingerprint('acme', 'slack_default', VALUE)}`,
    ]);
    expect(out).not.toContain('xoxb');
    expect(out).not.toContain(row?.ref_value.slice(20, 60));
  });

  it('refuses a value on the command line, writing nothing and calling no KMS', async () => {
    // Act
    const { code, err } = await etp([...SEED, '--ref-value', 'xoxb-2222222222-3333333333333-AbCdEf']);

    // Assess
    expect(code).toBe(2);
    expect(err).toContain(
      '--ref-value is refused with --ref-kind inline: a value on the command line stays in shell history and process lists. Pass --value-file <path>, or --value-file - to read standard input',
    );
    expect(err).not.toContain('xoxb');
    expect({ rows: await rowCount(), kms: kms.calls }).toEqual({ rows: 0, kms: [] });
  });

  it.each([
    ['no --value-file', [], '', '--value-file is required with --ref-kind inline'],
    [
      'an empty standard input',
      ['--value-file', '-'],
      '\n',
      '--value-file - (standard input) holds no value',
    ],
    [
      'a file that does not exist',
      ['--value-file', '/nonexistent/etp-value'],
      '',
      '--value-file /nonexistent/etp-value: cannot be read: no such file (ENOENT)',
    ],
    [
      'a value the Slack form refuses',
      ['--value-file', '-'],
      '{"bot_tokn":"xoxb-2222222222-3333333333333-AbCdEf"}',
      'the value does not fit slack_default: Slack secret slack_default is invalid in: ',
    ],
    [
      'a value over 64 KiB',
      ['--value-file', '-'],
      'x'.repeat(70_000),
      'inline values hold at most 65536 bytes',
    ],
  ])('refuses %s as a usage error, before any KMS call', async (_, flags, stdin, words) => {
    // Act
    const { code, err } = await etp([...SEED, ...flags], stdin);

    // Assess
    expect(code).toBe(2);
    expect(err).toContain(words);
    expect(err).not.toContain('xoxb-2222222222');
    expect({ rows: await rowCount(), kms: kms.calls }).toEqual({ rows: 0, kms: [] });
  });

  it('refuses a credential pasted as a field name without showing it', async () => {
    // Act
    const { code, err } = await etp(
      [
        'secrets',
        'seed',
        '--tenant',
        'acme',
        '--secret-name',
        'aws_default',
        '--ref-kind',
        'inline',
        '--value-file',
        '-',
      ],
      '{"AKIAIOSFODNN7EXAMPLE":"x"}',
    );

    // Assess
    expect(code).toBe(2);
    expect(err).toContain('AWS secret is invalid in: <redacted>');
    expect(err).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(await rowCount()).toBe(0);
  });

  it.each([
    ['named by --kms-key-id', ['--kms-key-id', 'alias/nope'], 'alias/nope'],
    // An alias ending in "-secrets", as the default one does: the cause once read as its value and was masked.
    [
      'an alias ending in -secrets',
      ['--kms-key-id', 'alias/etp/missing-secrets'],
      'alias/etp/missing-secrets',
    ],
  ])(
    'names KMS, the key (%s), the cause and what to set when the key does not exist, writing nothing',
    async (_case, flags, key) => {
      // Act
      const { code, err } = await etp([...SEED, '--value-file', '-', ...flags], VALUE);

      // Assess
      expect(code).toBe(1);
      expect(err).toContain(`KMS (${kms.endpoint}) could not seal with key ${key} (`);
      expect(err).not.toContain('<redacted>');
      expect(err).toContain(
        'Set --kms-key-id or ETP_INLINE_SECRET_KEY to the platform stack output InlineSecretKeyArn',
      );
      expect(await rowCount()).toBe(0);
    },
  );

  it('says to set the region, not the key, when KMS cannot be called without one', async () => {
    // Prepare
    delete process.env.AWS_REGION;

    try {
      // Act
      const { code, err } = await etp([...SEED, '--value-file', '-'], VALUE);

      // Assess
      expect(code).toBe(1);
      expect(err).toContain(
        '(Region is missing). Set AWS_REGION, or a region in your AWS profile: AWS_PROFILE',
      );
      expect(err).not.toContain('Set --kms-key-id');
      expect(await rowCount()).toBe(0);
    } finally {
      process.env.AWS_REGION = 'us-east-1';
    }
  });

  it('refuses --value-file with another ref kind', async () => {
    // Act
    const { code, err } = await etp([...SEED.slice(0, -1), 'env', '--value-file', '-']);

    // Assess
    expect(code).toBe(2);
    expect(err).toContain('--value-file and --kms-key-id belong to --ref-kind inline only');
  });

  it('fails with the KMS error and writes nothing when the key is disabled', async () => {
    // Prepare
    kms.setKeyState('Disabled');

    try {
      // Act
      const { code, err } = await etp([...SEED, '--value-file', '-'], VALUE);

      // Assess
      expect(code).toBe(1);
      expect(err).toContain('is disabled');
      expect(await rowCount()).toBe(0);
    } finally {
      kms.setKeyState('Enabled');
    }
  });
});
