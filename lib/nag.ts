import { Stack, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * A resolved CloudFormation value as one string in the notation cdk-nag names its
 * IAM findings with (its README, "Acknowledging granular findings"): `Ref` as
 * `<LogicalId>`, `Fn::GetAtt` as `<LogicalId.Attribute>`, `Fn::Join` joined,
 * `Fn::Sub` with `${…}` written `<…>`. Our own copy of that notation: importing
 * cdk-nag's internal `lib/utils` module would break on any release.
 */
export function flattenReference(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const node = value as Record<string, unknown>;
  if (node['Fn::Join']) {
    const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(flattenReference).join(delimiter);
  }
  if (node['Fn::Sub']) return flattenReference(node['Fn::Sub']);
  if (node['Fn::GetAtt']) {
    const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
    return `<${flattenReference(resource)}.${flattenReference(attribute)}>`;
  }
  if (node['Fn::ImportValue']) return flattenReference(node['Fn::ImportValue']);
  if (node.Ref) return `<${flattenReference(node.Ref)}>`;
  return JSON.stringify(value);
}

/**
 * Acknowledges cdk-nag's `AwsSolutions-IAM5` finding for each of `resourceArns`
 * that holds a wildcard, on `scope` (a role: the acknowledgment covers its policies).
 * ARNs without a wildcard are skipped, so nothing is acknowledged that is not flagged.
 *
 * @param reason - why the wildcard is needed; recorded in the construct's `aws:cdk:acknowledged-rules` metadata
 *   (cdk.out/<stack>.metadata.json), not in the validation report, which lists findings only.
 */
export function acknowledgeWildcardResources(
  scope: IConstruct,
  resourceArns: readonly string[],
  reason: string,
): void {
  const stack = Stack.of(scope);
  for (const arn of resourceArns) {
    const flattened = flattenReference(stack.resolve(arn));
    if (flattened.includes('*')) {
      Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${flattened}]`, reason });
    }
  }
}

/**
 * Acknowledges cdk-nag's `AwsSolutions-IAM4` finding for one AWS managed policy on a role.
 *
 * @param policyName - as `ManagedPolicy.fromAwsManagedPolicyName` takes it (`service-role/…`).
 */
export function acknowledgeManagedPolicy(role: IConstruct, policyName: string, reason: string): void {
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${policyName}]`,
    reason,
  });
}

/**
 * `fn.grantInvoke(role)`, acknowledging the IAM5 finding it brings: besides the
 * function's ARN, grantInvoke grants its qualified ARNs (`<arn>:*`, versions and
 * aliases) — still that one function.
 *
 * @param label - the function's name in the reason (`the dispatcher`).
 */
export function grantInvokeAcknowledged(fn: IFunction, role: IRole, label: string): void {
  fn.grantInvoke(role);
  acknowledgeWildcardResources(
    role,
    fn.resourceArnsForGrantInvoke,
    `grantInvoke also grants the qualified ARNs (versions, aliases) of ${label}, and of no other function.`,
  );
}
