/**
 * What every snapshot tool's spec says the same way. Spec files import this:
 * no SDK client.
 */
import { DEFAULT_AWS_SECRET } from '../../runtime/context';
import {
  defineToolSpec,
  type IamGrant,
  type ToolInputSchema,
  type ToolRuntimeSettings,
  type ToolSpec,
} from '../../runtime/spec';

/** Tags of every snapshot tool; `no_content` marks the roles that carry the content Deny (iam.ts). */
export const SNAPSHOT_TAGS = ['snapshots', 'aws', 'no_content'] as const;

/** What a snapshot tool's spec states for itself. */
export interface SnapshotSpecProps<S extends ToolInputSchema> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: () => S;
  /** The service its errors name when they do not say (`s3`, `ec2`, `ebs`). */
  readonly service: string;
  readonly iam: readonly IamGrant[];
  readonly runtime: ToolRuntimeSettings;
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
