/**
 * What cdk-nag flags in the console (lib/console.ts) and the platform accepts,
 * each acknowledged with its reason where it is flagged, and nothing else.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { Policy, Role } from 'aws-cdk-lib/aws-iam';
import { acknowledgeManagedPolicy, acknowledgeWildcardResources } from './nag';

/** Acknowledges the console's accepted findings: the distribution's, and CDK's BucketDeployment function's. */
export function acknowledgeConsoleFindings(
  distribution: Distribution,
  props: { readonly webAclArn?: string; readonly certificate?: unknown },
): void {
  const acknowledged = Validations.of(distribution);
  acknowledged.acknowledge({
    id: 'AwsSolutions-CFR1',
    reason: 'The console serves platform teams wherever they are; every API call needs a Cognito sign-in.',
  });
  if (!props.webAclArn) {
    acknowledged.acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'No web ACL given (webAclArn): the page is static and every API route requires a valid Cognito ID token (JWT authorizer), throttled at the stage.',
    });
  }
  acknowledged.acknowledge({
    id: 'AwsSolutions-CFR3',
    reason:
      'CloudFront standard logs need an ACL-enabled bucket; API requests are logged at the API stage and the assets bucket has S3 server access logs.',
  });
  if (!props.certificate) {
    acknowledged.acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'Without a certificate (certificate, domainNames) the distribution uses the CloudFront domain, whose default certificate allows no minimum protocol choice.',
    });
  }
  // CDK's BucketDeployment function: one per stack, beside this construct. Its policy's
  // wildcards are acknowledged one by one, as flagged, so nothing else is.
  for (const child of Stack.of(distribution).node.children) {
    if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
    Validations.of(child).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        "CDK's BucketDeployment function runs the Python runtime aws-cdk-lib chooses for it; it runs at deploy time only.",
    });
    const role = child.node.tryFindChild('ServiceRole') as Role | undefined;
    if (!role) continue;
    acknowledgeManagedPolicy(
      role,
      'service-role/AWSLambdaBasicExecutionRole',
      "CDK's BucketDeployment function writes its own logs with AWSLambdaBasicExecutionRole, and nothing else through it.",
    );
    const reason =
      "CDK's BucketDeployment copies the page's files from the CDK assets bucket into the console bucket and " +
      'invalidates the distribution: its grants (aws-cdk-lib) use these wildcards, on those two buckets.';
    const document = Stack.of(distribution).resolve(
      (role.node.tryFindChild('DefaultPolicy') as Policy | undefined)?.document,
    ) as { Statement?: { Action?: string | string[]; Resource?: unknown }[] } | undefined;
    for (const statement of document?.Statement ?? []) {
      for (const action of [statement.Action ?? []].flat()) {
        if (action.includes('*'))
          Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Action::${action}]`, reason });
      }
      acknowledgeWildcardResources(role, [statement.Resource ?? []].flat() as string[], reason);
    }
  }
}
