import { Template } from 'aws-cdk-lib/assertions';
import { toolCatalog } from '../../functions/tools/catalog';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import { logicalIdOf, newApp, roleOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
} from '../helpers/iam-simulation';

/**
 * The snapshot tools' no-content promise PROVED on the synthesized policies
 * (docs/design.md, "Snapshot tools"): each snapshot tool's role and the customer
 * role, resolved for concrete accounts and evaluated by an IAM policy simulator
 * (@cloud-copilot/iam-simulate), may list blocks and read inventory reports, and
 * are explicitly denied block and object content — even after an administrator
 * attaches a policy allowing every S3 and EBS action.
 */
const PLATFORM = '123456789012';
const CUSTOMER = '210987654321';
const REGION = 'eu-west-1';

const snapshotTools = toolCatalog
  .functionTools()
  .map((entry) => entry.spec)
  .filter((spec) => spec.tags.includes('snapshots'));

/** What an administrator widening the role later would attach (AmazonS3FullAccess and more). */
const WIDENED: NamedPolicy = {
  name: 'AdministratorWidened',
  policy: {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['s3:*', 'ebs:*', 'ec2:*'], Resource: '*' }],
  },
};

const SNAPSHOT = `arn:aws:ec2:${REGION}::snapshot/snap-0123456789abcdef0`;
const MANIFEST = 'arn:aws:s3:::inventory-dest/photos/daily/2026-03-10T01-00Z/manifest.json';
const DATA_FILE =
  'arn:aws:s3:::inventory-dest/photos/daily/data/0f0e4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b.parquet';
const CONTENT = [
  'arn:aws:s3:::photos/2026/family.jpg',
  'arn:aws:s3:::inventory-dest/photos/daily/data/notes.txt',
  'arn:aws:s3:::inventory-dest/photos/daily/2026-03-10T01-00Z/manifest.checksum',
];

let platform: ResolvedTemplate;
let customer: ResolvedTemplate;
let roleIds: Record<string, string>;
let customerRoleId: string;
let workspaceBucket: string;

beforeAll(() => {
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: PLATFORM, region: REGION });
  roleIds = Object.fromEntries(
    snapshotTools.map((spec) => [spec.name, roleOf(template, toolFunctionId(stack, spec.name))]),
  );
  workspaceBucket = arnIn(platform, logicalIdOf(stack.platform.runWorkspace.bucket));
  const customerStack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess');
  customer = resolveTemplate(Template.fromStack(customerStack), {
    account: CUSTOMER,
    region: REGION,
    parameters: { PlatformAccountId: PLATFORM, ExternalId: 'etp-acme-3f9a1c7e', TenantId: 'acme' },
  });
  customerRoleId = logicalIdOf(customerStack.auditRole);
});

/** A principal of the two templates: a session of the role and its identity policies. */
function principal(of: 'customer' | string, widened: boolean): { session: string; policies: NamedPolicy[] } {
  const [resolved, id] = of === 'customer' ? [customer, customerRoleId] : [platform, roleIds[of] as string];
  const policies = identityPoliciesOf(resolved, id);
  return {
    session: sessionOf(arnIn(resolved, id), 'etp.acme'),
    policies: widened ? [...policies, WIDENED] : policies,
  };
}

async function decision(
  who: { session: string; policies: NamedPolicy[] },
  action: string,
  resource: string,
  account = CUSTOMER,
): Promise<string> {
  return decide({
    principal: who.session,
    identityPolicies: who.policies,
    action,
    resource,
    resourceAccount: account,
  });
}

const roles = ['customer', ...snapshotTools.map((spec) => spec.name)];

describe('snapshot content is out of reach, proved on the synthesized policies', () => {
  it('covers every tool of functions/tools/snapshots (each carries the snapshots tag the deny is keyed on)', () => {
    const inFolder = toolCatalog
      .functionTools()
      .filter((entry) => entry.implementation.startsWith('snapshots/'))
      .map((entry) => entry.spec.name);
    expect(snapshotTools.map((spec) => spec.name).sort()).toEqual(inFolder.sort());
    expect(inFolder.length).toBeGreaterThan(0);
  });

  it.each(roles)(
    '%s is explicitly denied block and object content, even widened to s3:*, ebs:*',
    async (role) => {
      // Prepare
      const widened = principal(role, true);

      // Act
      const decisions = await Promise.all([
        decision(widened, 'ebs:GetSnapshotBlock', SNAPSHOT),
        ...CONTENT.flatMap((object) =>
          ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectTorrent'].map((action) =>
            decision(widened, action, object),
          ),
        ),
      ]);

      // Assess
      expect(decisions).toEqual(Array(1 + CONTENT.length * 3).fill('ExplicitlyDenied'));
    },
  );

  it('lets the customer role list blocks and read inventory manifests and data files, nothing else', async () => {
    // Prepare
    const role = principal('customer', false);

    // Act
    const decisions = await Promise.all([
      decision(role, 'ebs:ListSnapshotBlocks', SNAPSHOT),
      decision(role, 'ebs:ListChangedBlocks', SNAPSHOT),
      decision(role, 's3:GetObject', MANIFEST),
      decision(role, 's3:GetObject', DATA_FILE),
      decision(role, 's3:GetObject', CONTENT[0] as string),
    ]);

    // Assess
    expect(decisions).toEqual(['Allowed', 'Allowed', 'Allowed', 'Allowed', 'ExplicitlyDenied']);
  });

  it.each(snapshotTools.map((spec) => spec.name))(
    '%s reaches no findings file with its own role, widened or not (its calls are vended a run-data session)',
    async (tool) => {
      // Prepare
      const findings = `${workspaceBucket}/runs/acme/snapshot_forensics/r1/snapshots/findings.json`;

      // Act
      const decisions = await Promise.all(
        [false, true].flatMap((widen) =>
          ['s3:GetObject', 's3:PutObject'].map((action) =>
            decision(principal(tool, widen), action, findings, PLATFORM),
          ),
        ),
      );

      // Assess: test/infra/tenant-isolation.test.ts proves what the vended session reaches
      expect(decisions).toEqual(decisions.map(() => 'ExplicitlyDenied'));
    },
  );

  it.each(snapshotTools.map((spec) => spec.name))(
    '%s reads and writes no other file of a run’s workspace, even widened',
    async (tool) => {
      // Prepare: what an agent wrote, and what the engine keeps.
      const others = ['notes/report.md', 'conversations/investigate/turn-1.json', 'results/scan/0.json'].map(
        (file) => `${workspaceBucket}/runs/acme/snapshot_forensics/r1/${file}`,
      );

      // Act
      const own = await Promise.all(
        others.flatMap((file) =>
          ['s3:GetObject', 's3:PutObject'].map((action) =>
            decision(principal(tool, false), action, file, PLATFORM),
          ),
        ),
      );
      const widened = await Promise.all(
        others.map((file) => decision(principal(tool, true), 's3:GetObject', file, PLATFORM)),
      );

      // Assess
      expect(own).toEqual(own.map(() => 'ExplicitlyDenied'));
      expect(widened).toEqual(others.map(() => 'ExplicitlyDenied'));
    },
  );
});
