/**
 * What every snapshot tool's spec says the same way. Spec files import this:
 * no SDK client.
 */
import { DEFAULT_AWS_SECRET } from '../../runtime/context';
import { defineToolSpec, type ToolInputSchema, type ToolSpec } from '../../runtime/spec';
import type { AwsReadOnlySpecProps } from '../aws/shared/read-only-spec';
import { snapshotContentDeny } from './iam';

/** Tags of every snapshot tool; `no_content`: its role carries the content Deny (iam.ts). */
export const SNAPSHOT_TAGS = ['snapshots', 'aws', 'no_content'] as const;

/**
 * What a snapshot tool's spec states for itself: an AWS read-only spec's fields
 * (`service` names the service its errors carry when they do not say), plus its
 * side effects and tags.
 */
export interface SnapshotSpecProps<S extends ToolInputSchema> extends AwsReadOnlySpecProps<S> {
  /** @default 'none' */
  readonly sideEffects?: 'none' | 'write';
  /** Added to {@link SNAPSHOT_TAGS}. @default ['read_only'] */
  readonly tags?: readonly string[];
  /** The run workspace the tool keeps findings in (ToolSpec.workspaceAccess). @default none */
  readonly workspaceAccess?: ToolSpec['workspaceAccess'];
  /** ToolSpec.retryAfterSecretRenewal. @default true for 'none', false for 'write' */
  readonly retryAfterSecretRenewal?: boolean;
  /**
   * Whether the tool reads the tenant's account (`aws_default`, tag `aws`: its role
   * may assume the customer role). `inspect_finding` reads only the run's findings.
   * @default true
   */
  readonly readsAccount?: boolean;
}

/**
 * Declares a snapshot tool's spec: it reads the tenant's `aws_default` (unless
 * `readsAccount: false`), is tagged `snapshots`, `aws` (when it reads the
 * account), `no_content` plus its own tags, and its role (and the customer
 * role) carries the explicit content Deny ({@link snapshotContentDeny}).
 */
export function defineSnapshotSpec<S extends ToolInputSchema>(props: SnapshotSpecProps<S>): ToolSpec<S> {
  const readsAccount = props.readsAccount ?? true;
  return defineToolSpec({
    name: props.name,
    description: props.description,
    inputSchema: props.inputSchema,
    tags: [...SNAPSHOT_TAGS.filter((tag) => readsAccount || tag !== 'aws'), ...(props.tags ?? ['read_only'])],
    service: props.service,
    requiresSecrets: readsAccount ? [DEFAULT_AWS_SECRET] : [],
    sideEffects: props.sideEffects ?? 'none',
    iam: props.iam,
    iamDeny: snapshotContentDeny(),
    ...(props.workspaceAccess ? { workspaceAccess: props.workspaceAccess } : {}),
    ...(props.retryAfterSecretRenewal === undefined
      ? {}
      : { retryAfterSecretRenewal: props.retryAfterSecretRenewal }),
    runtime: props.runtime,
  });
}
