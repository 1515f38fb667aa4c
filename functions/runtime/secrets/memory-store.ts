import { compareText } from '../text';
import type { SecretReference, SecretReferenceInput, SecretReferenceStore } from './reference';
import { referenceInputOf, validateReference } from './reference';

/**
 * The embedded store of local runs (no table named): the default tenant's
 * `aws_default`, `aws_org_default` (an organization run's target) and
 * `slack_default` point at environment variables, so a local run reads
 * `ETP_AWS_DEFAULT`, `ETP_AWS_ORG_DEFAULT` and `ETP_SLACK_DEFAULT` when they are set.
 */
export const EMBEDDED_DEFAULT_REFERENCES: readonly SecretReferenceInput[] = [
  {
    tenant_id: 'default',
    secret_name: 'aws_default',
    ref_kind: 'env',
    ref_value: 'ETP_AWS_DEFAULT',
    notes: 'embedded default',
  },
  {
    tenant_id: 'default',
    secret_name: 'aws_org_default',
    ref_kind: 'env',
    ref_value: 'ETP_AWS_ORG_DEFAULT',
    notes: 'embedded default',
  },
  {
    tenant_id: 'default',
    secret_name: 'slack_default',
    ref_kind: 'env',
    ref_value: 'ETP_SLACK_DEFAULT',
    notes: 'embedded default',
  },
];

/** A {@link SecretReferenceStore} in memory: local runs and tests. */
export class InMemorySecretReferenceStore implements SecretReferenceStore {
  readonly #rows = new Map<string, SecretReference>();

  constructor(rows: Iterable<SecretReferenceInput> = EMBEDDED_DEFAULT_REFERENCES) {
    const now = new Date().toISOString();
    for (const row of rows) {
      const valid = validateReference(row);
      this.#rows.set(key(valid.tenant_id, valid.secret_name), { ...valid, created_at: now, updated_at: now });
    }
  }

  async get(tenantId: string, secretName: string): Promise<SecretReference | undefined> {
    const row = this.#rows.get(key(tenantId, secretName));
    return row && structuredClone(row);
  }

  async list(tenantId?: string): Promise<SecretReference[]> {
    return [...this.#rows.values()]
      .filter((row) => tenantId === undefined || row.tenant_id === tenantId)
      .sort((a, b) => compareText(key(a.tenant_id, a.secret_name), key(b.tenant_id, b.secret_name)))
      .map((row) => structuredClone(row));
  }

  async put(reference: SecretReference): Promise<SecretReference> {
    const valid = validateReference(referenceInputOf(reference));
    const existing = this.#rows.get(key(valid.tenant_id, valid.secret_name));
    const now = new Date().toISOString();
    const row: SecretReference = {
      ...valid,
      created_at: existing?.created_at ?? now,
      created_by: existing?.created_by ?? valid.created_by,
      updated_at: now,
    };
    this.#rows.set(key(row.tenant_id, row.secret_name), row);
    return structuredClone(row);
  }

  async delete(tenantId: string, secretName: string): Promise<boolean> {
    return this.#rows.delete(key(tenantId, secretName));
  }
}

function key(tenantId: string, secretName: string): string {
  return `${tenantId}\u0000${secretName}`;
}
