/**
 * IAM statements the CDK writes from the specs' data (functions/runtime/spec.ts:
 * IamGrant, IamDeny), the same way for tool roles and the customer-account role.
 */
import { Aws } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import type { IamDeny, IamGrant } from '../functions/runtime/spec';
import { acknowledgeWildcardResources } from './nag';

/** Actions that read and never change: the only ones a wildcard resource is acknowledged for. */
export const READ_ONLY_ACTION =
  /^[a-z0-9-]+:(?:Describe|List|Get)[A-Za-z0-9]*$|^iam:GenerateCredentialReport$/;

/**
 * An ARN a spec writes in the `aws` partition (`arn:aws:s3:::*\/manifest.json`),
 * written in the deploying stack's partition (`arn:${AWS::Partition}:…`), so the
 * same specs deploy to `aws-cn` and `aws-us-gov`. Anything else (`*`) is kept.
 */
export function inStackPartition(resource: string): string {
  return resource.startsWith('arn:aws:')
    ? `arn:${Aws.PARTITION}:${resource.slice('arn:aws:'.length)}`
    : resource;
}

/** An explicit Deny of a spec, in the stack's partition. */
export function denyStatement(deny: IamDeny): PolicyStatement {
  const statement = new PolicyStatement({ sid: deny.sid, effect: Effect.DENY, actions: [...deny.actions] });
  if (deny.notResources) {
    statement.addNotResources(...deny.notResources.map(inStackPartition));
  } else {
    statement.addResources(...(deny.resources ?? ['*']).map(inStackPartition));
  }
  return statement;
}

/**
 * An Allow of a spec's grant, in the stack's partition, with cdk-nag's IAM5
 * acknowledged, with the reason, for its wildcards when every action only reads:
 * `*` (APIs without resource-level permissions), and ARN patterns (resources of
 * the tenant's account known only at run time: any region's snapshots, any
 * bucket's inventory reports, narrowed to their kind). A wildcard on any other
 * action stays a finding and fails synthesis, so a write on `*` needs a human decision.
 *
 * @param subject - who holds it, for the reason (`snapshot_stats`, `The customer role`).
 */
export function allowGrant(role: IConstruct, grant: IamGrant, subject: string): PolicyStatement {
  const resources = (grant.resources ?? ['*']).map(inStackPartition);
  if (grant.actions.every((action) => READ_ONLY_ACTION.test(action))) {
    const actions = grant.actions.join(', ');
    if (resources.includes('*')) {
      acknowledgeWildcardResources(
        role,
        ['*'],
        `${subject} calls ${actions}: read-only APIs that support no resource-level permissions ` +
          '(Service Authorization Reference, "Resource types" column empty), so IAM requires "*".',
      );
    }
    acknowledgeWildcardResources(
      role,
      resources.filter((resource) => resource !== '*'),
      `${subject} calls ${actions}: read-only, on resources of the tenant account known only at run time ` +
        '(any region, any bucket); the ARN pattern narrows them to the kind of resource the tool reads.',
    );
  } else if (grant.wildcardReason) {
    acknowledgeWildcardResources(role, resources, `${subject}: ${grant.wildcardReason}`);
  }
  return new PolicyStatement({ actions: [...grant.actions], resources });
}
