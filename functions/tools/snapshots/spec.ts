/**
 * What every snapshot tool's spec says the same way. Spec files import this:
 * no SDK client.
 */
import { DEFAULT_AWS_SECRET } from '../../runtime/context';
import { defineToolSpec, type ToolInputSchema, type ToolSpec } from '../../runtime/spec';
import type { AwsReadOnlySpecProps } from '../aws/read-only-spec';

/** Tags of every snapshot tool; `no_content` marks the roles that carry the content Deny (iam.ts). */
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
}

/**
 * Declares a snapshot tool's spec: it reads the tenant's `aws_default`, and is
 * tagged `snapshots`, `aws`, `no_content` plus its own tags.
 */
export function defineSnapshotSpec<S extends ToolInputSchema>(props: SnapshotSpecProps<S>): ToolSpec<S> {
  return defineToolSpec({
    name: props.name,
    description: props.description,
    inputSchema: props.inputSchema,
    tags: [...SNAPSHOT_TAGS, ...(props.tags ?? ['read_only'])],
    service: props.service,
    requiresSecrets: [DEFAULT_AWS_SECRET],
    sideEffects: props.sideEffects ?? 'none',
    iam: props.iam,
    runtime: props.runtime,
  });
}
