import { EC2Client } from '@aws-sdk/client-ec2';
import {
  type DBInstance,
  DescribeDBInstancesCommand,
  RDSClient,
  RDSServiceException,
} from '@aws-sdk/client-rds';
import { mockClient } from 'aws-sdk-client-mock';
import { rdsInstance } from '../../../../bench/aws-fixtures';
import { redact } from '../../../../functions/runtime/redact';
import { type RdsInventoryValue, rdsInventoryTool } from '../../../../functions/tools/aws/rds-inventory';
import { findingId } from '../../../../functions/tools/aws/shared/findings';
import { type ApiCallCase, arrangeRegions, byRegion } from '../../../helpers/api-call-case';
import { expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

/**
 * `aws_rds_inventory`'s API-call case: one representative run, every AWS call it makes
 * answered in the shapes of the AWS API references, exported from its test. The API-call bench
 * (bench/api-calls.ts) counts its calls, the IAM check
 * (test/unit/tools/aws/iam-covers-calls.test.ts) proves its spec declares them,
 * and the end-to-end aws_pulse runs answer the account with it.
 */
/** The cases of `aws_rds_inventory`. */
// biome-ignore lint/suspicious/noExportsInTest: the tool's API-call case, read by bench/api-call-cases.ts (the API-call bench, the IAM check, the aws_pulse e2e runs)
export const apiCallCases: readonly ApiCallCase[] = [
  {
    tool: 'aws_rds_inventory',
    clients: [EC2Client, RDSClient],
    account: '2 DB instances in each of 2 regions, regions "all"',
    args: { regions: 'all' },
    arrange: (stubOf) => {
      arrangeRegions(stubOf);
      stubOf(RDSClient)
        .on(DescribeDBInstancesCommand)
        .callsFake(
          byRegion(
            (region) => ({
              DBInstances: [
                { id: 'orders', hardened: true },
                { id: 'reporting', hardened: false },
              ].map(({ id, hardened }) => rdsInstance(`${id}-db`, region, hardened)),
            }),
            { DBInstances: [] },
          ),
        );
    },
  },
];

const rdsMock = mockClient(RDSClient);

/** A call that must have succeeded (the tenant's aws_default: the AWS docs' example keys). */
async function succeeded(args: Record<string, unknown>) {
  return expectSuccess<RdsInventoryValue>(await runAwsTool(rdsInventoryTool, args));
}

const ACCOUNT = '123456789012';

/** A DescribeDBInstances item as the RDS API reference shows it ("DBInstance"). */
function dbInstance(id: string, settings: Partial<DBInstance>): DBInstance {
  return {
    DBInstanceIdentifier: id,
    DBInstanceArn: `arn:aws:rds:eu-west-1:${ACCOUNT}:db:${id}`,
    DBInstanceStatus: 'available',
    Endpoint: { Address: `${id}.abcdefghijkl.eu-west-1.rds.amazonaws.com`, Port: 5432 },
    AllocatedStorage: 100,
    StorageType: 'gp3',
    InstanceCreateTime: new Date('2023-09-01T08:00:00.000Z'),
    PreferredBackupWindow: '03:00-03:30',
    AvailabilityZone: 'eu-west-1a',
    AutoMinorVersionUpgrade: true,
    DbiResourceId: `db-${id.toUpperCase()}`,
    CACertificateIdentifier: 'rds-ca-rsa2048-g1',
    CopyTagsToSnapshot: true,
    IAMDatabaseAuthenticationEnabled: false,
    TagList: [],
    ...settings,
  };
}

const PAGE_1: DBInstance[] = [
  dbInstance('orders-db', {
    Engine: 'postgres',
    EngineVersion: '16.3',
    DBInstanceClass: 'db.m6g.large',
    MultiAZ: true,
    SecondaryAvailabilityZone: 'eu-west-1b',
    StorageEncrypted: true,
    KmsKeyId: `arn:aws:kms:eu-west-1:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
    PubliclyAccessible: false,
    BackupRetentionPeriod: 7,
    DeletionProtection: true,
  }),
  dbInstance('legacy-mysql', {
    Engine: 'mysql',
    EngineVersion: '5.7.44',
    DBInstanceClass: 'db.t3.micro',
    MultiAZ: false,
    StorageEncrypted: false,
    PubliclyAccessible: true,
    BackupRetentionPeriod: 0,
    DeletionProtection: false,
    ReadReplicaDBInstanceIdentifiers: ['reports-replica'],
  }),
];
const PAGE_2: DBInstance[] = [
  dbInstance('reports-replica', {
    Engine: 'mysql',
    EngineVersion: '5.7.44',
    DBInstanceClass: 'db.t3.medium',
    MultiAZ: false,
    StorageEncrypted: true,
    PubliclyAccessible: false,
    BackupRetentionPeriod: 0,
    DeletionProtection: false,
    ReadReplicaSourceDBInstanceIdentifier: 'legacy-mysql',
  }),
  dbInstance('analytics-1', {
    Engine: 'aurora-postgresql',
    EngineVersion: '15.4',
    DBInstanceClass: 'db.r6g.large',
    DBClusterIdentifier: 'analytics',
    MultiAZ: false,
    StorageEncrypted: true,
    PubliclyAccessible: false,
    BackupRetentionPeriod: 1,
    DeletionProtection: false,
    StorageType: 'aurora',
    AllocatedStorage: 1,
  }),
];

function rdsError(name: string, message: string, httpStatusCode: number): RDSServiceException {
  return new RDSServiceException({ name, message, $fault: 'client', $metadata: { httpStatusCode } });
}

beforeEach(() => {
  rdsMock.reset();
  rdsMock
    .on(DescribeDBInstancesCommand)
    .resolves({ DBInstances: PAGE_1, Marker: 'bWFya2VyLTE=' })
    .on(DescribeDBInstancesCommand, { Marker: 'bWFya2VyLTE=' })
    .resolves({ DBInstances: PAGE_2 });
});

describe('aws_rds_inventory', () => {
  it('lists instances with their settings and reports public, unencrypted, unprotected and single-AZ ones', async () => {
    // Act
    const { value, truncated, summary } = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    expect(truncated).toBe(false);
    expect(redact(value)).toEqual(value); // no field name or value is masked on its way out
    expect(value).toMatchObject({
      instances: 4,
      byEngine: { postgres: 1, mysql: 2, 'aurora-postgresql': 1 },
      byInstanceClass: { 'db.m6g.large': 1, 'db.t3.micro': 1, 'db.t3.medium': 1, 'db.r6g.large': 1 },
      byStatus: { available: 4 },
      multiAz: 1,
      storageEncrypted: 3,
      publiclyAccessible: 1,
      backupsDisabled: 2,
      deletionProtected: 1,
      clusterMembers: 1,
    });
    expect(value.findings).toMatchObject({
      total: 7,
      bySeverity: { critical: 0, high: 1, medium: 2, low: 4, info: 0 },
      byCheck: {
        rds_publicly_accessible: 1,
        rds_storage_unencrypted: 1,
        rds_backups_disabled: 1,
        rds_deletion_protection_disabled: 2,
        rds_single_az: 2,
      },
    });
    expect(value.findings.top[0]).toMatchObject({
      id: findingId(
        'rds_publicly_accessible',
        'eu-west-1',
        `arn:aws:rds:eu-west-1:${ACCOUNT}:db:legacy-mysql`,
      ),
      severity: 'high',
      resource: `arn:aws:rds:eu-west-1:${ACCOUNT}:db:legacy-mysql`,
      title: 'RDS instance legacy-mysql is publicly accessible (its endpoint resolves to a public IP)',
      details: { dbInstanceIdentifier: 'legacy-mysql', engine: 'mysql', dbInstanceClass: 'db.t3.micro' },
    });
    expect(value.dbInstances.map((i) => [i.dbInstanceIdentifier, i.worstSeverity, i.findings])).toEqual([
      [
        'legacy-mysql',
        'high',
        [
          'rds_publicly_accessible',
          'rds_storage_unencrypted',
          'rds_backups_disabled',
          'rds_deletion_protection_disabled',
          'rds_single_az',
        ],
      ],
      ['reports-replica', 'low', ['rds_deletion_protection_disabled', 'rds_single_az']],
      ['analytics-1', null, []],
      ['orders-db', null, []],
    ]);
    expect(value.dbInstances[3]).toEqual({
      dbInstanceIdentifier: 'orders-db',
      dbInstanceArn: `arn:aws:rds:eu-west-1:${ACCOUNT}:db:orders-db`,
      region: 'eu-west-1',
      engine: 'postgres',
      engineVersion: '16.3',
      dbInstanceClass: 'db.m6g.large',
      status: 'available',
      multiAz: true,
      storageEncrypted: true,
      publiclyAccessible: false,
      backupRetentionDays: 7,
      deletionProtection: true,
      dbClusterIdentifier: null,
      readReplicaSource: null,
      allocatedStorageGiB: 100,
      storageType: 'gp3',
      findings: [],
      worstSeverity: null,
    });
    expect(summary).toBe(
      '4 RDS DB instances (1 public, 1 unencrypted) in 1 region: 7 findings (0 critical, 1 high)',
    );
    // Two pages of 100 records at most, the second asked for with the first's Marker.
    const calls = rdsMock.commandCalls(DescribeDBInstancesCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input).toEqual({ MaxRecords: 100, Marker: 'bWFya2VyLTE=' });
  });

  it('gives the same finding ids on every run', async () => {
    // Act
    const first = await succeeded({ regions: ['eu-west-1'] });
    const second = await succeeded({ regions: ['eu-west-1'] });

    // Assess
    const ids = first.value.findings.top.map((f) => f.id);
    expect(second.value.findings.top.map((f) => f.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(7);
    expect(ids).toContain(
      findingId('rds_single_az', 'eu-west-1', `arn:aws:rds:eu-west-1:${ACCOUNT}:db:reports-replica`),
    );
  });

  it('reports a denied region and a throttled region inside the result while another succeeds', async () => {
    // Prepare
    rdsMock.on(DescribeDBInstancesCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'us-east-1') {
        throw rdsError(
          'AccessDenied',
          'User is not authorized to perform: rds:DescribeDBInstances because no identity-based policy allows it',
          403,
        );
      }
      if (region === 'sa-east-1') throw rdsError('Throttling', 'Rate exceeded', 400);
      return { DBInstances: PAGE_1 };
    });

    // Act
    const { value, summary } = await succeeded({ regions: ['eu-west-1', 'us-east-1', 'sa-east-1'] });

    // Assess
    expect(value).toMatchObject({ instances: 2, publiclyAccessible: 1 });
    expect(value.regions).toEqual([
      expect.objectContaining({ region: 'eu-west-1', instances: 2 }),
      {
        region: 'us-east-1',
        error: expect.objectContaining({ code: 'access_denied', retryable: false, service: 'rds' }),
      },
      {
        region: 'sa-east-1',
        error: expect.objectContaining({ code: 'throttled', retryable: true, service: 'rds' }),
      },
    ]);
    expect(summary).toMatch(/; 2 regions failed$/);
  });

  it('stops at the page cap and marks the result truncated', async () => {
    // Prepare: every page points at one more.
    rdsMock.on(DescribeDBInstancesCommand).callsFake(async (input: { Marker?: string }) => {
      const page = Number(input.Marker ?? '0');
      return {
        DBInstances: [
          dbInstance(`db-${page}`, { Engine: 'postgres', StorageEncrypted: true, MultiAZ: true }),
        ],
        Marker: String(page + 1),
      };
    });

    // Act
    const { value, truncated } = await succeeded({ regions: ['eu-west-1'], topN: 5 });

    // Assess
    expect(truncated).toBe(true);
    expect(value.instances).toBe(100);
    expect(value.dbInstances).toHaveLength(5);
    expect(value.regions[0]).toMatchObject({ region: 'eu-west-1', stoppedBy: 'page_cap' });
  });
});
