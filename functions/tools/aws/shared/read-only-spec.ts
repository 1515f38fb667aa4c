import { DEFAULT_AWS_SECRET } from '../../../runtime/context';
import {
  defineToolSpec,
  type IamGrant,
  type ToolInputSchema,
  type ToolRuntimeSettings,
  type ToolSpec,
} from '../../../runtime/spec';

/** What a read-only AWS tool's spec states for itself; {@link defineAwsReadOnlySpec} fills in the rest. */
export interface AwsReadOnlySpecProps<S extends ToolInputSchema> {
  /** snake_case, `aws_` prefixed (`aws_ebs_inventory`). */
  readonly name: string;
  /** Written for the model: what it returns, what it costs, its limits. */
  readonly description: string;
  /** Builds the strict zod object (`z.strictObject`) on first use. */
  readonly inputSchema: () => S;
  /** The AWS service it audits, as its errors report it (`ec2`, `ce`, `compute-optimizer`); also its second tag. */
  readonly service: string;
  /** Exactly the read-only IAM statements its function's role needs. */
  readonly iam: readonly IamGrant[];
  /** Lambda sizing: memory in MB, timeout in seconds (region fan-out and paging set each tool's needs). */
  readonly runtime: ToolRuntimeSettings;
}

/**
 * Declares the spec of a read-only AWS audit tool. Every such tool reads the
 * tenant's `aws_default` secret (the one `ctx.aws()` resolves) and changes
 * nothing in the account, so the fields that say so are filled here, once:
 * `tags: ['aws', service, 'read_only']`, `requiresSecrets: ['aws_default']`,
 * `sideEffects: 'none'`. The result is the same {@link ToolSpec} that
 * {@link defineToolSpec} would give for those fields written out.
 *
 * @example
 * export const ebsInventorySpec = defineAwsReadOnlySpec({
 *   name: 'aws_ebs_inventory', description: 'Inventory of EBS volumes…',
 *   inputSchema: () => z.strictObject({ regions: regionsArg() }), service: 'ec2',
 *   iam: [{ actions: ['ec2:DescribeVolumes', 'ec2:DescribeRegions'] }],
 *   runtime: { memorySizeMb: 512, timeoutSeconds: 120 },
 * });
 */
export function defineAwsReadOnlySpec<S extends ToolInputSchema>(
  props: AwsReadOnlySpecProps<S>,
): ToolSpec<S> {
  return defineToolSpec({
    name: props.name,
    description: props.description,
    inputSchema: props.inputSchema,
    tags: ['aws', props.service, 'read_only'],
    service: props.service,
    requiresSecrets: [DEFAULT_AWS_SECRET],
    sideEffects: 'none',
    iam: props.iam,
    runtime: props.runtime,
  });
}
