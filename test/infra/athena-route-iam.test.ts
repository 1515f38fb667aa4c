import { athenaRouteGrants, snapshotContentDeny } from '../../functions/tools/snapshots/iam';
import { decide, type NamedPolicy, sessionOf } from '../helpers/iam-simulation';

/**
 * The Athena route's least privilege PROVED with the IAM policy simulator: the
 * snapshot role holding `athenaRouteGrants` and the content Deny (with the run
 * workspace excepted, as lib/iam-statements.ts adds it for a tool with
 * workspace access) may run queries in its workgroup, read its Glue table, the
 * inventory's symlink and data files, and write results under the workspace's
 * `runs/*\/athena/` — and still cannot read a content object, even after an
 * administrator attaches s3:* on every resource.
 */
const ACCOUNT = '210987654321';
const REGION = 'eu-west-1';
const WORKSPACE = 'etp-run-workspace-123456789012';
const SCOPE = {
  region: REGION,
  account: ACCOUNT,
  workGroup: 'etp-snapshots',
  database: 'etp_inventory',
  table: 'photos_daily',
  destinationBucket: 'inventory-dest',
  inventoryBase: 'photos/daily/',
  workspaceBucket: WORKSPACE,
};
const ROLE = `arn:aws:iam::${ACCOUNT}:role/etp-snapshot-stats`;

const statements = (widened: boolean): NamedPolicy[] => [
  {
    name: 'AthenaRoute',
    policy: {
      Version: '2012-10-17',
      Statement: [
        ...athenaRouteGrants(SCOPE).map((grant) => ({
          Effect: 'Allow',
          Action: [...grant.actions],
          Resource: [...(grant.resources ?? ['*'])],
        })),
        ...snapshotContentDeny().map((deny) => ({
          Sid: deny.sid,
          Effect: 'Deny',
          Action: [...deny.actions],
          ...(deny.notResources
            ? { NotResource: [...deny.notResources, `arn:aws:s3:::${WORKSPACE}/runs/*`] }
            : { Resource: [...(deny.resources ?? [])] }),
        })),
      ],
    },
  },
  ...(widened
    ? [
        {
          name: 'AdministratorWidened',
          policy: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: ['s3:*', 'athena:*', 'glue:*'], Resource: '*' }],
          },
        },
      ]
    : []),
];

const ask = (action: string, resource: string, widened = false) =>
  decide({
    principal: sessionOf(ROLE, 'snapshot-stats'),
    identityPolicies: statements(widened),
    action,
    resource,
    resourceAccount: ACCOUNT,
  });

const WORKGROUP = `arn:aws:athena:${REGION}:${ACCOUNT}:workgroup/etp-snapshots`;
const SYMLINK = 'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/symlink.txt';
const DATA_FILE =
  'arn:aws:s3:::inventory-dest/photos/daily/data/0f0e4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b.parquet';
const RESULTS = `arn:aws:s3:::${WORKSPACE}/runs/acme/s3_review/r1/athena/q-1.csv`;
const CONTENT = [
  'arn:aws:s3:::photos/2026/family.jpg',
  'arn:aws:s3:::inventory-dest/photos/daily/data/notes.txt',
  'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/notes.txt',
];

describe('the Athena route role', () => {
  it.each([
    ['athena:StartQueryExecution', WORKGROUP],
    ['athena:GetQueryExecution', WORKGROUP],
    ['athena:GetQueryResults', WORKGROUP],
    ['glue:GetTable', `arn:aws:glue:${REGION}:${ACCOUNT}:table/etp_inventory/photos_daily`],
    ['glue:GetDatabase', `arn:aws:glue:${REGION}:${ACCOUNT}:database/etp_inventory`],
    ['s3:GetObject', SYMLINK],
    ['s3:GetObject', DATA_FILE],
    ['s3:PutObject', RESULTS],
    ['s3:GetObject', RESULTS],
  ])('may %s on %s', async (action, resource) => {
    expect(await ask(action, resource)).toBe('Allowed');
  });

  it.each([
    ['athena:StartQueryExecution', `arn:aws:athena:${REGION}:${ACCOUNT}:workgroup/primary`],
    ['glue:GetTable', `arn:aws:glue:${REGION}:${ACCOUNT}:table/etp_inventory/other_table`],
    ['glue:CreateTable', `arn:aws:glue:${REGION}:${ACCOUNT}:table/etp_inventory/photos_daily`],
    ['s3:PutObject', `arn:aws:s3:::${WORKSPACE}/runs/acme/s3_review/r1/report.md`],
    ['s3:PutObject', 'arn:aws:s3:::inventory-dest/photos/daily/hive/dt=2026-03-10-01-00/symlink.txt'],
    ['s3:GetObject', 'arn:aws:s3:::inventory-dest/records/daily/hive/dt=2026-03-10-01-00/symlink.txt'],
  ])('may not %s on %s', async (action, resource) => {
    expect(await ask(action, resource)).toBe('ImplicitlyDenied');
  });

  it.each(CONTENT)('cannot read content object %s, even widened to s3:*', async (resource) => {
    expect(await ask('s3:GetObject', resource)).not.toBe('Allowed');
    expect(await ask('s3:GetObject', resource, true)).toBe('ExplicitlyDenied');
    expect(await ask('s3:GetObjectVersion', resource, true)).toBe('ExplicitlyDenied');
  });
});
