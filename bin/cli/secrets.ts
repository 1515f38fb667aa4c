import { type Command, Option } from 'commander';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { assertIdentifier, SECRET_NAME, TENANT_ID } from '../../functions/runtime/ids';
import { redactString } from '../../functions/runtime/redact';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { CONVENTION_RULE, conventionalSecretVariable } from '../../functions/runtime/secrets/providers';
import {
  REF_KINDS,
  type RefKind,
  referenceInputOf,
  type SecretReference,
  validateReference,
} from '../../functions/runtime/secrets/reference';
import { localSecretReferences } from '../local/local-dispatcher';
import { cliCreatedBy } from './created-by';
import { INLINE_KEY_ENV, INLINE_SECRET_KEY_ALIAS, seedInline } from './inline-seed';
import { type CliRun, EXIT_FAILED } from './io';
import { requireSecretRefsTable, SECRET_REFS_TABLE_ENV, secretRefsTable } from './options';
import { placeTenantSecret } from './secret-placement';
import { formatTable } from './text';

interface SeedOptions {
  readonly tenant: string;
  readonly secretName: string;
  /** One of REF_KINDS: commander checks the choice. */
  readonly refKind: RefKind;
  /** Optional for `env`: the conventional variable (`ETP_SECRET_<TENANT>__<NAME>`). Refused for `inline`. */
  readonly refValue?: string;
  /** `inline` only: the file holding the value, `-` for standard input. */
  readonly valueFile?: string;
  /** `inline` only: the KMS key to seal with. */
  readonly kmsKeyId?: string;
  readonly notes?: string;
  readonly table?: string;
  /** `--no-tag` sets false: do not tag the Secrets Manager secret. */
  readonly tag: boolean;
}

/** `--ref-value`, or for `env` the conventional variable of the tenant and name. */
function refValueOf(options: SeedOptions): string {
  if (options.refValue !== undefined) return options.refValue;
  if (options.refKind === 'env') {
    const variable = conventionalSecretVariable(options.tenant, options.secretName);
    if (variable) return variable;
    throw new InvalidArgsError(
      `--ref-value is required: ${options.tenant}/${options.secretName} has no conventional variable (${CONVENTION_RULE})`,
    );
  }
  throw new InvalidArgsError('--ref-value is required for ref_kind secrets_manager: the secret ARN');
}

const TABLE_HELP = `secret-reference table (default: $${SECRET_REFS_TABLE_ENV})`;

/**
 * `etp secrets seed|list|delete`: the tenants' secret references in the
 * DynamoDB table (endpoint from the SDK's `AWS_ENDPOINT_URL_DYNAMODB`). Only
 * references are written and printed (an env var name or a Secrets Manager
 * ARN), never a secret value.
 */
export function registerSecretsCommands(program: Command, run: CliRun): void {
  const { io } = run;
  const secrets = program
    .command('secrets')
    .description('Manage secret references (where a tenant secret lives, never its value)');

  secrets
    .command('seed')
    .description('Create or replace a secret reference in the table')
    .requiredOption('--tenant <tenant>', 'tenant id')
    .requiredOption('--secret-name <name>', 'secret name the tools ask for (aws_default, slack_default)')
    .addOption(
      new Option('--ref-kind <kind>', 'where the value lives').choices(REF_KINDS).makeOptionMandatory(),
    )
    .option(
      '--ref-value <value>',
      'env: an environment variable name (default: ETP_SECRET_<TENANT>__<NAME>); secrets_manager: a secret ARN ' +
        '(never the secret itself)',
    )
    .option(
      '--value-file <path>',
      'inline: the file holding the value (- for standard input); never on the command line',
    )
    .option(
      '--kms-key-id <key>',
      `inline: the KMS key to seal with (default: $${INLINE_KEY_ENV}, else ${INLINE_SECRET_KEY_ALIAS})`,
    )
    .option('--notes <text>', 'free text for people')
    .option('--table <name>', TABLE_HELP)
    .option(
      '--no-tag',
      'do not tag the Secrets Manager secret with its tenant and name (deployed functions need the tags)',
    )
    .action(async (options: SeedOptions) => {
      // The identifiers first, whatever else is wrong: they name what the rest is about.
      assertIdentifier(TENANT_ID, options.tenant, '--tenant');
      assertIdentifier(SECRET_NAME, options.secretName, '--secret-name');
      if (options.refKind === 'inline') {
        await seedInline(options, run);
        return;
      }
      if (options.valueFile !== undefined || options.kmsKeyId !== undefined) {
        throw new InvalidArgsError('--value-file and --kms-key-id belong to --ref-kind inline only');
      }
      const table = requireSecretRefsTable('secrets seed', options.table, io.env);
      // Validated before the table is touched: a bad value is a usage error, not a failed write.
      const row = validateReference({
        tenant_id: options.tenant,
        secret_name: options.secretName,
        ref_kind: options.refKind,
        ref_value: refValueOf(options),
        ...(options.notes !== undefined ? { notes: options.notes } : {}),
        created_by: cliCreatedBy(),
      });
      // Tagged first: a row whose secret deployed functions may not read is written only with --no-tag.
      const placement =
        row.ref_kind === 'secrets_manager'
          ? await placeTenantSecret(row.ref_value, row.tenant_id, row.secret_name, table, options.tag)
          : undefined;
      const saved = await new DynamoDbSecretReferenceStore(table).put(row);
      io.out(
        `Seeded ${saved.tenant_id}/${saved.secret_name} -> ${saved.ref_kind} ${saved.ref_value} in table ${table}\n`,
      );
      if (placement?.tagged)
        io.out(`Tagged the secret etp-tenant=${saved.tenant_id}, etp-secret=${saved.secret_name}\n`);
      if (row.ref_kind === 'env') {
        io.err(
          'warning: an env reference is read by local runs only; deployed tools read secrets from Secrets Manager\n',
        );
      }
      for (const warning of placement?.warnings ?? []) io.err(`warning: ${warning}\n`);
    });

  secrets
    .command('list')
    .description('List secret references (the embedded default store when no table is named)')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--table <name>', TABLE_HELP)
    .action(async (options: { tenant?: string; table?: string }) => {
      if (options.tenant !== undefined) assertIdentifier(TENANT_ID, options.tenant, '--tenant');
      const table = secretRefsTable(options.table, io.env);
      const rows = await localSecretReferences(table).list(options.tenant);
      const source = table
        ? `table ${table}`
        : `the embedded default store of local runs (no table named: pass --table or set ${SECRET_REFS_TABLE_ENV})`;
      io.out(`Secret references in ${source}${options.tenant ? `, tenant ${options.tenant}` : ''}:\n`);
      if (rows.length === 0) {
        io.out('(none)\n');
        return;
      }
      const problems = rows.map(problemOf);
      const malformed = problems.filter(Boolean).length;
      io.out(
        formatTable(
          [
            'tenant',
            'secret name',
            'ref kind',
            'ref value',
            'notes',
            'updated',
            ...(malformed ? ['problem'] : []),
          ],
          rows.map((row, index) => [
            ...[
              row.tenant_id,
              row.secret_name,
              row.ref_kind,
              refValueCell(row),
              row.notes,
              row.updated_at,
            ].map(cellOf),
            ...(malformed ? [problems[index] ?? ''] : []),
          ]),
        ),
      );
      if (malformed) {
        io.out(
          `${malformed} ${malformed === 1 ? 'row does' : 'rows do'} not pass validation (written by hand?): rewrite with etp secrets seed, or delete.\n`,
        );
      }
    });

  secrets
    .command('delete')
    .description('Delete a secret reference from the table')
    .requiredOption('--tenant <tenant>', 'tenant id')
    .requiredOption('--secret-name <name>', 'secret name')
    .option('--table <name>', TABLE_HELP)
    .action(async (options: { tenant: string; secretName: string; table?: string }) => {
      assertIdentifier(TENANT_ID, options.tenant, '--tenant');
      assertIdentifier(SECRET_NAME, options.secretName, '--secret-name');
      const table = requireSecretRefsTable('secrets delete', options.table, io.env);
      const deleted = await new DynamoDbSecretReferenceStore(table).delete(
        options.tenant,
        options.secretName,
      );
      if (!deleted) {
        io.err(
          `error: tenant ${options.tenant} has no secret reference ${options.secretName} in table ${table}\n`,
        );
        run.exitCode = EXIT_FAILED;
        return;
      }
      io.out(`Deleted ${options.tenant}/${options.secretName} from table ${table}\n`);
    });
}

/**
 * A table cell of a row as read, whatever a row written by hand holds: text as
 * is, a missing field empty, a number or a DynamoDB set or map as JSON; redacted
 * in case something secret-looking was written where a reference belongs.
 */
function cellOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'object') return redactString(String(value));
  if (value instanceof Set) return redactString(JSON.stringify([...value]));
  if (value instanceof Uint8Array) return `(${value.byteLength} bytes)`;
  return redactString(JSON.stringify(value));
}

/** What the ref value column shows: an inline row's fingerprint, never its ciphertext; else the reference. */
function refValueCell(row: SecretReference): unknown {
  if (row.ref_kind !== 'inline') return row.ref_value;
  return `encrypted, fingerprint ${typeof row.fingerprint === 'string' ? row.fingerprint : '(none)'}`;
}

/** Why `put` would refuse a row as read (its problems, no value), or '' for a well-formed row. */
function problemOf(row: SecretReference): string {
  try {
    validateReference(referenceInputOf(row));
    return '';
  } catch (err) {
    return redactString((err as Error).message.replace(/^Invalid secret reference: /, ''));
  }
}
