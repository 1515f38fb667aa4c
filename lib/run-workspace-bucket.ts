import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type LifecycleRule,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { RUNS_PREFIX, SCRATCH_PREFIX } from '../functions/runtime/workspace-path';

/** Properties of a {@link RunWorkspaceBucket}. */
export interface RunWorkspaceBucketProps {
  /**
   * How long a run's workspace (`runs/<tenant>/<scenario>/<runId>/`: claim-checked
   * results, levels' answers, files the agents wrote) is kept, in whole days.
   * @default - kept until deleted: run-to-run comparisons read earlier runs
   */
  readonly runRetention?: Duration;
  /**
   * How long scratch workspaces (`scratch/<tenant>/<runId>/`, calls made outside a
   * scenario such as `etp tools invoke`) are kept, in whole days.
   * @default Duration.days(7)
   */
  readonly scratchRetention?: Duration;
  /** How long the server access logs are kept, in whole days. @default Duration.days(365) */
  readonly accessLogRetention?: Duration;
  /** What happens to both buckets when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** Default life of a scratch workspace. */
export const DEFAULT_SCRATCH_RETENTION = Duration.days(7);

/** Default life of a server access log object: a year, the span audits usually look back over. */
export const DEFAULT_ACCESS_LOG_RETENTION = Duration.days(365);

/** Prefix of the workspace bucket's server access logs in the logs bucket. */
export const ACCESS_LOG_PREFIX = 'run-workspace/';

function wholeDays(name: string, duration: Duration): Duration {
  const days = duration.toHours() / 24;
  if (!Number.isInteger(days) || days < 1) {
    throw new Error(
      `${name} must be a whole number of days, at least 1 (S3 lifecycle expirations are in days)`,
    );
  }
  return Duration.days(days);
}

/**
 * The platform's run-workspace bucket (docs/design.md, "Workspace, file tools and
 * claim-check"): each run's files under `runs/<tenant>/<scenario>/<runId>/`,
 * scratch space under `scratch/<tenant>/<runId>/`.
 *
 * - Encryption: SSE-S3 (S3-managed keys). The objects are tool results already
 *   redacted by the dispatcher and read by the dispatcher alone, so a customer
 *   managed KMS key would add a key policy to keep, `kms:GenerateDataKey`/`Decrypt`
 *   grants and a KMS request per object read or written, without narrowing who can
 *   read: the bucket policy and the tenant-scoped run-data sessions already do
 *   (`TenantRunData`, lib/tenant-secret-readers.ts). The
 *   logs bucket must use SSE-S3: server access log delivery does not support
 *   SSE-KMS destinations (Amazon S3 user guide, "Enabling Amazon S3 server access logging").
 * - Block Public Access (all four settings), ACLs disabled (`BucketOwnerEnforced`),
 *   TLS required (`enforceSSL`, TLS 1.2 at least).
 * - Versioning: off. Every object is written by the platform for one run; retries
 *   rewrite identical bytes and `edit_file` records its edits in the object's
 *   metadata, so old versions would only pile up cost and keep data past the
 *   lifecycle rules. Retention is by lifecycle rule instead.
 * - Server access logs go to a second bucket (same settings, logs expiring after
 *   `accessLogRetention`), delivered under a bucket policy for
 *   `logging.s3.amazonaws.com` limited to this bucket and account, not an ACL.
 * - Lifecycle: `scratch/` expires after `scratchRetention`; `runs/` after
 *   `runRetention` when given; incomplete multipart uploads are aborted after a day.
 *
 * @throws Error when a retention is not a whole number of days.
 * @example
 * const workspace = new RunWorkspaceBucket(this, 'RunWorkspace', { runRetention: Duration.days(400) });
 * new TenantRunData(this, 'RunData', { bucket: workspace.bucket, table: runRecords });
 */
export class RunWorkspaceBucket extends Construct {
  /** The workspace bucket. */
  public readonly bucket: Bucket;
  /** Where the workspace bucket's server access logs are delivered (under {@link ACCESS_LOG_PREFIX}). */
  public readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: RunWorkspaceBucketProps = {}) {
    super(scope, id);
    // Log delivery through a bucket policy rather than the LogDeliveryWrite ACL, which
    // needs ACLs enabled (set before any child is created: feature flags are context).
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const common = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      removalPolicy,
    };

    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      ...common,
      lifecycleRules: [
        {
          id: 'expire-access-logs',
          expiration: wholeDays(
            'accessLogRetention',
            props.accessLogRetention ?? DEFAULT_ACCESS_LOG_RETENTION,
          ),
        },
      ],
    });

    const lifecycleRules: LifecycleRule[] = [
      {
        id: 'expire-scratch',
        prefix: SCRATCH_PREFIX,
        expiration: wholeDays('scratchRetention', props.scratchRetention ?? DEFAULT_SCRATCH_RETENTION),
      },
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ];
    if (props.runRetention) {
      lifecycleRules.push({
        id: 'expire-runs',
        prefix: RUNS_PREFIX,
        expiration: wholeDays('runRetention', props.runRetention),
      });
    }
    this.bucket = new Bucket(this, 'Bucket', {
      ...common,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: ACCESS_LOG_PREFIX,
      lifecycleRules,
    });
  }

  /**
   * Keeps a tool's `role` off the workspace bucket: an explicit Deny (it beats any
   * Allow, such as the snapshot tools' `s3:ListBucket` on `*` for inventory report
   * folders, or an administrator's AmazonS3ReadOnlyAccess) of listing it
   * (`s3:ListBucket`, `s3:ListBucketVersions`, `s3:ListBucketMultipartUploads`)
   * and of reading, writing or deleting its objects. A tool that keeps files in a
   * run's workspace reaches them with the run-data session the dispatcher vends
   * for the call (functions/runtime/run-data-sessions.ts, `workspaceSessionPolicy`),
   * a principal these Denies do not bind.
   */
  denyToolRole(role: Role): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DenyWorkspaceListing',
        effect: Effect.DENY,
        actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:ListBucketMultipartUploads'],
        resources: [this.bucket.bucketArn],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DenyWorkspaceObjects',
        effect: Effect.DENY,
        actions: ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
  }
}
