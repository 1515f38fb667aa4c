/**
 * The IAM action an AWS SDK v3 command needs, for checking a tool's declared
 * `iam` against the commands it sends (test/unit/tools/aws/iam-covers-calls.test.ts).
 *
 * The rule of the Service Authorization Reference ("Actions, resources, and
 * condition keys for AWS services"): the action is the service's IAM prefix and
 * the API operation's name (`EC2Client` + `DescribeInstancesCommand` →
 * `ec2:DescribeInstances`). The few operations whose action is named otherwise,
 * and those that need no permission, are listed below with their page.
 */

/** IAM service prefix of each SDK client class (Service Authorization Reference, each service's page). */
const SERVICE_PREFIXES: Readonly<Record<string, string>> = {
  CloudTrailClient: 'cloudtrail',
  CloudWatchClient: 'cloudwatch',
  ComputeOptimizerClient: 'compute-optimizer',
  CostExplorerClient: 'ce',
  DynamoDBClient: 'dynamodb',
  EBSClient: 'ebs',
  EC2Client: 'ec2',
  IAMClient: 'iam',
  LambdaClient: 'lambda',
  OrganizationsClient: 'organizations',
  RDSClient: 'rds',
  S3Client: 's3',
  S3ControlClient: 's3',
  SecretsManagerClient: 'secretsmanager',
  STSClient: 'sts',
};

/**
 * Operations whose IAM action is not `<prefix>:<operation>` (Service
 * Authorization Reference, "Actions defined by Amazon S3": ListBuckets is
 * `s3:ListAllMyBuckets`, GetBucketEncryption `s3:GetEncryptionConfiguration`, the
 * bucket and account Block Public Access reads are named for their level).
 */
const RENAMED: Readonly<Record<string, string>> = {
  'S3Client ListBucketsCommand': 's3:ListAllMyBuckets',
  'S3Client GetBucketEncryptionCommand': 's3:GetEncryptionConfiguration',
  'S3Client GetPublicAccessBlockCommand': 's3:GetBucketPublicAccessBlock',
  'S3ControlClient GetPublicAccessBlockCommand': 's3:GetAccountPublicAccessBlock',
};

/** Operations that need no permission (STS API Reference, "GetCallerIdentity": "No permissions are required"). */
const FREE: ReadonlySet<string> = new Set(['STSClient GetCallerIdentityCommand']);

/** The IAM action a command needs: an action, `null` when none is needed, or a problem saying what to add here. */
export function iamActionOf(
  client: string,
  command: string,
): { readonly action: string | null } | { readonly problem: string } {
  const key = `${client} ${command}`;
  if (FREE.has(key)) return { action: null };
  const renamed = RENAMED[key];
  if (renamed) return { action: renamed };
  const prefix = SERVICE_PREFIXES[client];
  if (!prefix) {
    return {
      problem: `${client} has no IAM service prefix: add it to SERVICE_PREFIXES in test/helpers/iam-actions.ts (the prefix is on the service's page of the Service Authorization Reference)`,
    };
  }
  return { action: `${prefix}:${command.replace(/Command$/, '')}` };
}

/** Whether `action` is granted by one of `declared` (exact, or a `*` wildcard as IAM matches it, case-insensitively). */
export function isGranted(action: string, declared: readonly string[]): boolean {
  return declared.some((pattern) => {
    const regex = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i');
    return regex.test(action);
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
