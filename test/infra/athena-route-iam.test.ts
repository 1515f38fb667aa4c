import { Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_DATABASE, DEFAULT_WORKGROUP } from '../../functions/tools/snapshots/athena/settings';
import { ATHENA_BYTES_SCANNED_CUTOFF, CustomerAccessStack } from '../../lib/customer-access-stack';
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
 * The Athena route's least privilege PROVED with the IAM policy simulator on the
 * synthesized policies: the customer role (CustomerAccessStack, where the
 * queries run with the tenant's session) may run queries only in the platform's
 * `etp-*` workgroup, create and read only `inventory_*` tables of the `etp_*`
 * database, read the inventory's symlink and data files — and still cannot read
 * a content object, even after an administrator attaches s3:*, athena:* and
 * glue:*. The snapshot tools' own roles (platform account) may write the route's
 * answers only under `snapshots/athena/` of a run's workspace.
 */
const PLATFORM = '123456789012';
const CUSTOMER = '210987654321';
const REGION = 'eu-west-1';
const TOOLS = ['snapshot_stats', 'diff_snapshots'] as const;

const WIDENED: NamedPolicy = {
  name: 'AdministratorWidened',
  policy: {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['s3:*', 'athena:*', 'glue:*'], Resource: '*' }],
  },
};

let customer: ResolvedTemplate;
let customerTemplate: Template;
let customerRoleId: string;
let platform: ResolvedTemplate;
let toolRoles: Record<string, string>;
let workspace: string;

beforeAll(() => {
  const customerStack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess');
  customerTemplate = Template.fromStack(customerStack);
  customer = resolveTemplate(customerTemplate, {
    account: CUSTOMER,
    region: REGION,
    parameters: { PlatformAccountId: PLATFORM, ExternalId: 'etp-acme-3f9a1c7e', TenantId: 'acme' },
  });
  customerRoleId = logicalIdOf(customerStack.auditRole);
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: PLATFORM, region: REGION });
  toolRoles = Object.fromEntries(TOOLS.map((name) => [name, roleOf(template, toolFunctionId(stack, name))]));
  workspace = arnIn(platform, logicalIdOf(stack.platform.runWorkspace.bucket));
});

function ask(role: 'customer' | (typeof TOOLS)[number], action: string, resource: string, widened = false) {
  const [resolved, id, account] =
    role === 'customer'
      ? [customer, customerRoleId, CUSTOMER]
      : [platform, toolRoles[role] as string, PLATFORM];
  const policies = identityPoliciesOf(resolved, id);
  return decide({
    principal: sessionOf(arnIn(resolved, id), 'etp.acme'),
    identityPolicies: widened ? [...policies, WIDENED] : policies,
    action,
    resource,
    resourceAccount: account,
  });
}

const GLUE = `arn:aws:glue:${REGION}:${CUSTOMER}`;
const WORKGROUP = `arn:aws:athena:${REGION}:${CUSTOMER}:workgroup/${DEFAULT_WORKGROUP}`;
const TABLE = `${GLUE}:table/${DEFAULT_DATABASE}/inventory_0123456789abcdef01234567`;
const SYMLINK = 'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/symlink.txt';
const DATA_FILE =
  'arn:aws:s3:::inventory-dest/photos/daily/data/0f0e4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b.parquet';
const CONTENT = [
  'arn:aws:s3:::photos/2026/family.jpg',
  'arn:aws:s3:::inventory-dest/photos/daily/data/notes.txt',
  'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/notes.txt',
  'arn:aws:s3:::inventory-dest/photos/daily/hive/symlink.txt',
];

describe('the customer role on the Athena route', () => {
  it.each([
    ['athena:StartQueryExecution', WORKGROUP],
    ['athena:GetQueryExecution', WORKGROUP],
    ['athena:GetQueryResults', WORKGROUP],
    ['glue:GetDatabase', `${GLUE}:database/${DEFAULT_DATABASE}`],
    ['glue:GetTable', TABLE],
    ['glue:CreateTable', TABLE],
    ['glue:CreateTable', `${GLUE}:catalog`],
    ['s3:GetObject', SYMLINK],
    ['s3:GetObject', DATA_FILE],
    ['s3:GetBucketLocation', 'arn:aws:s3:::inventory-dest'],
  ])('may %s on %s', async (action, resource) => {
    expect(await ask('customer', action, resource)).toBe('Allowed');
  });

  it.each([
    ['athena:StartQueryExecution', `arn:aws:athena:${REGION}:${CUSTOMER}:workgroup/primary`],
    ['athena:UpdateWorkGroup', WORKGROUP],
    ['athena:StopQueryExecution', WORKGROUP],
    ['glue:CreateTable', `${GLUE}:table/default/inventory_0123456789abcdef01234567`],
    ['glue:GetTable', `${GLUE}:table/${DEFAULT_DATABASE}/customers`],
    ['glue:DeleteTable', TABLE],
    ['glue:UpdateTable', TABLE],
    ['glue:GetPartitions', TABLE],
    ['s3:PutObject', SYMLINK],
    ['s3:PutObject', 'arn:aws:s3:::inventory-dest/athena-results/q-1.csv'],
  ])('may not %s on %s', async (action, resource) => {
    expect(await ask('customer', action, resource)).toBe('ImplicitlyDenied');
  });

  it.each(CONTENT)(
    'cannot read content object %s, even widened to s3:*, athena:*, glue:*',
    async (resource) => {
      expect(await ask('customer', 's3:GetObject', resource)).not.toBe('Allowed');
      expect(await ask('customer', 's3:GetObject', resource, true)).toBe('ExplicitlyDenied');
      expect(await ask('customer', 's3:GetObjectVersion', resource, true)).toBe('ExplicitlyDenied');
    },
  );

  it('comes with its workgroup (managed query results, settings enforced, a scan cut-off) and Glue database', () => {
    customerTemplate.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: DEFAULT_WORKGROUP,
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: ATHENA_BYTES_SCANNED_CUTOFF,
        ManagedQueryResultsConfiguration: { Enabled: true },
      },
    });
    const [workGroup] = Object.values(customerTemplate.findResources('AWS::Athena::WorkGroup'));
    expect(workGroup?.Properties.WorkGroupConfiguration.ResultConfiguration).toBeUndefined();
    customerTemplate.hasResourceProperties('AWS::Glue::Database', {
      DatabaseInput: { Name: DEFAULT_DATABASE },
    });
  });
});

describe.each(TOOLS)("%s's own role and the route's answers", (tool) => {
  const answer = () => `${workspace}/runs/acme/s3_review/r1/snapshots/athena/${tool}-2026-03-10T01-00Z.json`;

  it('may write an answer under snapshots/athena/ of a run workspace, nothing else there', async () => {
    expect(await ask(tool, 's3:PutObject', answer())).toBe('Allowed');
    expect(await ask(tool, 's3:PutObject', `${workspace}/scratch/acme/r1/snapshots/athena/a.json`)).toBe(
      'Allowed',
    );
    expect(await ask(tool, 's3:PutObject', `${workspace}/runs/acme/s3_review/r1/report.md`)).not.toBe(
      'Allowed',
    );
    expect(
      await ask(tool, 's3:PutObject', `${workspace}/runs/acme/s3_review/r1/snapshots/findings.json`),
    ).not.toBe('Allowed');
  });

  it('cannot read a content object, even widened', async () => {
    for (const resource of CONTENT) {
      expect(await ask(tool, 's3:GetObject', resource, true)).toBe('ExplicitlyDenied');
    }
  });
});
