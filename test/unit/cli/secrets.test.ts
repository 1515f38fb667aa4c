import { DeleteCommand, DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { etp } from './run-etp';

const documentsMock = mockClient(DynamoDBDocumentClient);

const TABLE_ENV = { ETP_SECRET_REFS_TABLE: 'etp-secret-references' };

function accessDenied(): Error {
  return Object.assign(new Error('User is not authorized to perform: dynamodb:Query'), {
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400, requestId: 'REQ1' },
  });
}

beforeEach(() => {
  documentsMock.reset();
});

describe('etp secrets list', () => {
  it('shows the embedded default store, and says so, when no table is named', async () => {
    // Prepare: a value is set, and must not show.
    process.env.ETP_SLACK_DEFAULT = '{"bot_token":"xoxb-1111-2222-abcdefabcdef"}';

    try {
      // Act
      const { code, out, err } = await etp(['secrets', 'list']);

      // Assess
      const lines = out.trimEnd().split('\n');
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(lines[0]).toBe(
        'Secret references in the embedded default store of local runs (no table named: pass --table or set ETP_SECRET_REFS_TABLE):',
      );
      expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(0, 5))).toEqual([
        ['TENANT', 'SECRET NAME', 'REF KIND', 'REF VALUE', 'NOTES'],
        ['default', 'aws_default', 'env', 'ETP_AWS_DEFAULT', 'embedded default'],
        ['default', 'aws_org_default', 'env', 'ETP_AWS_ORG_DEFAULT', 'embedded default'],
        ['default', 'slack_default', 'env', 'ETP_SLACK_DEFAULT', 'embedded default'],
      ]);
      expect(out).not.toContain('xoxb');
      expect(documentsMock.calls()).toHaveLength(0);
    } finally {
      delete process.env.ETP_SLACK_DEFAULT;
    }
  });

  it("reads one tenant's rows from the table, masking anything that looks like a credential", async () => {
    // Prepare: a row written by hand, bypassing validation.
    documentsMock.on(QueryCommand).resolves({
      Items: [
        {
          tenant_id: 'acme',
          secret_name: 'slack_default',
          ref_kind: 'env',
          ref_value: 'xoxb-1111-2222-abcdefabcdef',
          updated_at: '2025-01-02T03:04:05.000Z',
        },
      ],
    });

    // Act
    const { code, out } = await etp(['secrets', 'list', '--tenant', 'acme'], TABLE_ENV);

    // Assess
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe('Secret references in table etp-secret-references, tenant acme:');
    expect(out.split('\n')[2]?.split(/ {2,}/)).toEqual([
      'acme',
      'slack_default',
      'env',
      '<redacted>',
      '2025-01-02T03:04:05.000Z',
      'ref_value looks like a credential; the table stores references only (an env var name or a Secrets Manager ARN)',
    ]);
    expect(out).not.toContain('xoxb');
    expect(documentsMock.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      TableName: 'etp-secret-references',
      ExpressionAttributeValues: { ':t': 'acme' },
    });
  });

  it('shows rows written by hand whatever their cells hold, marking the malformed ones, and exits 0', async () => {
    // Prepare: one good row between a row without ref_value and one whose ref_kind is a number.
    documentsMock.on(QueryCommand).resolves({
      Items: [
        { tenant_id: 'acme', secret_name: 'a_missing_value', ref_kind: 'env' },
        { tenant_id: 'acme', secret_name: 'b_good', ref_kind: 'env', ref_value: 'ACME_SLACK', notes: 'ok' },
        {
          tenant_id: 'acme',
          secret_name: 'c_number_kind',
          ref_kind: 7,
          ref_value: 'ACME_AWS',
          notes: new Set(['x', 'y']),
        },
      ],
    });

    // Act
    const { code, out, err } = await etp(['secrets', 'list', '--tenant', 'acme'], TABLE_ENV);

    // Assess
    const lines = out.trimEnd().split('\n');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(lines[1]?.split(/ {2,}/)).toEqual([
      'TENANT',
      'SECRET NAME',
      'REF KIND',
      'REF VALUE',
      'NOTES',
      'UPDATED',
      'PROBLEM',
    ]);
    expect(lines.slice(2, 5).map((line) => line.split(/ {2,}/))).toEqual([
      ['acme', 'a_missing_value', 'env', 'ref_value: Required: expected string'],
      ['acme', 'b_good', 'env', 'ACME_SLACK', 'ok'],
      [
        'acme',
        'c_number_kind',
        '7',
        'ACME_AWS',
        '["x","y"]',
        'ref_kind: Invalid option: expected one of "env"|"secrets_manager"|"inline"; notes: Invalid input: expected string, received Set',
      ],
    ]);
    expect(lines[5]).toBe(
      '2 rows do not pass validation (written by hand?): rewrite with etp secrets seed, or delete.',
    );
  });

  it('exits 1 with one line, no stack trace, when the table cannot be read', async () => {
    // Prepare
    documentsMock.on(QueryCommand).rejects(accessDenied());

    // Act
    const outcome = await etp(['secrets', 'list', '--tenant', 'acme', '--table', 'refs']);

    // Assess
    expect(outcome).toEqual({
      code: 1,
      out: '',
      err: 'error: Secret-reference table refs (region us-east-1): User is not authorized to perform: dynamodb:Query\n',
    });
  });

  it('adds the stack trace with --verbose', async () => {
    // Prepare
    documentsMock.on(QueryCommand).rejects(accessDenied());

    // Act
    const { code, err } = await etp(['secrets', 'list', '--tenant', 'acme', '--table', 'refs', '--verbose']);

    // Assess
    const lines = err.split('\n');
    expect(code).toBe(1);
    expect(lines[0]).toBe(
      'error: Secret-reference table refs (region us-east-1): User is not authorized to perform: dynamodb:Query',
    );
    expect(lines[1]).toBe(
      'ServiceCallError: Secret-reference table refs (region us-east-1): User is not authorized to perform: dynamodb:Query',
    );
    expect(lines).toContain(
      'Caused by: AccessDeniedException: Secret-reference table refs (region us-east-1): User is not authorized to perform: dynamodb:Query',
    );
    expect(lines[2]).toMatch(/^ {4}at /);
  });
});

describe('etp secrets seed', () => {
  it('writes the reference to the table named by ETP_SECRET_REFS_TABLE', async () => {
    // Prepare
    documentsMock.on(UpdateCommand).callsFake((input) => ({
      Attributes: { ...input.Key, ref_kind: 'env', ref_value: 'ACME_SLACK' },
    }));

    // Act
    const { code, out } = await etp(
      [
        'secrets',
        'seed',
        '--tenant',
        'acme',
        '--secret-name',
        'slack_default',
        '--ref-kind',
        'env',
        '--ref-value',
        'ACME_SLACK',
        '--notes',
        'bot token of the ops workspace',
      ],
      TABLE_ENV,
    );

    // Assess
    expect(code).toBe(0);
    expect(out).toBe('Seeded acme/slack_default -> env ACME_SLACK in table etp-secret-references\n');
    const input = documentsMock.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input).toMatchObject({
      TableName: 'etp-secret-references',
      Key: { tenant_id: 'acme', secret_name: 'slack_default' },
      ExpressionAttributeValues: {
        ':ref_kind': 'env',
        ':ref_value': 'ACME_SLACK',
        ':notes': 'bot token of the ops workspace',
        ':created_by': expect.stringMatching(/^etp-cli:/),
      },
    });
  });

  it.each([
    [
      ['--ref-kind', 'env', '--ref-value', 'ACME_SLACK'],
      {},
      'error: secrets seed needs the secret-reference table: pass --table <name> or set ETP_SECRET_REFS_TABLE (the embedded default store of local runs is read-only)\n',
    ],
    [
      ['--ref-kind', 'vault', '--ref-value', 'ACME_SLACK'],
      TABLE_ENV,
      "error: option '--ref-kind <kind>' argument 'vault' is invalid. Allowed choices are env, secrets_manager, inline. (see: etp secrets seed --help)\n",
    ],
    [
      ['--ref-kind', 'env', '--ref-value', 'not a variable'],
      TABLE_ENV,
      // validateReference's own wording (reference.ts) follows.
      /^error: ref_value for ref_kind env must be an environment variable name\b.*\n$/,
    ],
    [
      ['--ref-kind', 'env', '--ref-value', 'xoxb-1111-2222-abcdefabcdef'],
      TABLE_ENV,
      'error: ref_value looks like a credential; the table stores references only (an env var name or a Secrets Manager ARN)\n',
    ],
    [
      ['--ref-kind', 'env', '--ref-value', 'ACME_SLACK', '--notes', 'token xoxb-1111-2222-abcdefabcdef'],
      TABLE_ENV,
      'error: notes look like they hold a credential (a token, key or webhook URL); the table stores references only: describe the secret, never paste it\n',
    ],
  ])('exits 2 without writing for %j', async (options, env, message) => {
    // Act
    const outcome = await etp(
      ['secrets', 'seed', '--tenant', 'acme', '--secret-name', 'slack_default', ...options],
      env,
    );

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err: typeof message === 'string' ? message : expect.stringMatching(message),
    });
    expect(documentsMock.calls()).toHaveLength(0);
  });
});

describe('etp secrets delete', () => {
  it('deletes the row and exits 0', async () => {
    // Prepare
    documentsMock
      .on(DeleteCommand)
      .resolves({ Attributes: { tenant_id: 'acme', secret_name: 'slack_default' } });

    // Act
    const outcome = await etp(
      ['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'slack_default'],
      TABLE_ENV,
    );

    // Assess
    expect(outcome).toEqual({
      code: 0,
      out: 'Deleted acme/slack_default from table etp-secret-references\n',
      err: '',
    });
  });

  it('exits 1 when there was no such row', async () => {
    // Prepare
    documentsMock.on(DeleteCommand).resolves({});

    // Act
    const outcome = await etp(['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'nope'], TABLE_ENV);

    // Assess
    expect(outcome).toEqual({
      code: 1,
      out: '',
      err: 'error: tenant acme has no secret reference nope in table etp-secret-references\n',
    });
  });

  it.each([
    [
      ['--tenant', 'acme', '--secret-name', 'a b'],
      'error: --secret-name "a b" is not a secret name: 1-128 letters, digits, _ . or -, starting with a letter or digit (slack_default)\n',
    ],
    [
      ['--tenant', '', '--secret-name', 'slack_default'],
      'error: --tenant is empty; give <tenant> (tenant id)\n',
    ],
  ])('exits 2 for %j without reaching the table', async (options, message) => {
    // Act
    const outcome = await etp(['secrets', 'delete', ...options], TABLE_ENV);

    // Assess
    expect(outcome).toEqual({ code: 2, out: '', err: message });
    expect(documentsMock.calls()).toHaveLength(0);
  });

  it('exits 2 when no table is named', async () => {
    // Act
    const outcome = await etp(['secrets', 'delete', '--tenant', 'acme', '--secret-name', 'slack_default']);

    // Assess
    expect(outcome.code).toBe(2);
    expect(outcome.err).toMatch(/^error: secrets delete needs the secret-reference table/);
  });
});
