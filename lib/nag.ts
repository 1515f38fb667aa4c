import { Stack, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
// cdk-nag names an IAM5 finding after the resource flattened by this function
// (`<Logical.Arn>:*`, `arn:<AWS::Partition>:…`); using it keeps our acknowledgments
// matching whatever the stack's environment makes of an ARN.
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { IConstruct } from 'constructs';

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
    const flattened = flattenCfnReference(stack.resolve(arn));
    if (flattened.includes('*')) {
      Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${flattened}]`, reason });
    }
  }
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
