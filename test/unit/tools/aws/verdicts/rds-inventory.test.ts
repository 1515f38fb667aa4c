/**
 * Issue 9 for aws_rds_inventory: kind 8 (a failed region's database listed),
 * kind 5 (deleting instances counted as live), kind 9 (duplicates), and kind 10
 * on the answer AWS documents (settings absent from it are unknown, not off).
 */
import {
  type DBInstance,
  DescribeDBInstancesCommand,
  RDSClient,
  RDSServiceException,
} from '@aws-sdk/client-rds';
import { mockClient } from 'aws-sdk-client-mock';
import { type RdsInventoryValue, rdsInventoryTool } from '../../../../../functions/tools/aws/rds-inventory';
import { findingId } from '../../../../../functions/tools/aws/shared/findings';
import { DOCUMENTED_DB_INSTANCES } from '../../../../helpers/aws-documented-examples';
import { expectSuccess, runAwsTool } from '../../../../helpers/aws-tool';
import { mockedClientRegion } from '../../../../helpers/ec2-pages';

const rdsMock = mockClient(RDSClient);

async function inventory(regions: string[]) {
  return expectSuccess<RdsInventoryValue>(await runAwsTool(rdsInventoryTool, { regions }));
}

/** A well-configured instance as DescribeDBInstances returns it (RDS API reference, "DBInstance"). */
function db(id: string, region: string, extra: Partial<DBInstance> = {}): DBInstance {
  return {
    DBInstanceIdentifier: id,
    DBInstanceArn: `arn:aws:rds:${region}:123456789012:db:${id}`,
    DBInstanceClass: 'db.t3.medium',
    Engine: 'postgres',
    EngineVersion: '16.3',
    DBInstanceStatus: 'available',
    MultiAZ: true,
    StorageEncrypted: true,
    PubliclyAccessible: false,
    BackupRetentionPeriod: 7,
    DeletionProtection: true,
    AllocatedStorage: 100,
    StorageType: 'gp3',
    ...extra,
  };
}

beforeEach(() => {
  rdsMock.reset();
});

describe('aws_rds_inventory merges a region only when its read completes (issue 9, kind 8)', () => {
  it('does not list the database of a region that fails on page 2', async () => {
    // Prepare: the case.
    rdsMock.on(DescribeDBInstancesCommand).callsFake(async (input: { Marker?: string }, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === 'eu-west-1') return { DBInstances: [db('orders', region)] };
      if (!input.Marker)
        return { DBInstances: [db('leaky', region, { PubliclyAccessible: true })], Marker: 'page-2' };
      throw new RDSServiceException({
        name: 'InternalFailure',
        message: 'An internal error occurred',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
      });
    });

    // Act
    const { value } = await inventory(['eu-west-1', 'us-east-1']);

    // Assess
    expect(value.dbInstances.map((d) => d.dbInstanceIdentifier)).toEqual(['orders']);
    expect(value.instances).toBe(1);
    expect(value.publiclyAccessible).toBe(0);
    expect(value.findings.total).toBe(0);
    expect(value.regions[1]).toEqual({
      region: 'us-east-1',
      error: expect.objectContaining({ code: 'upstream_error' }),
    });
  });
});

describe('aws_rds_inventory counts deleting instances apart and each instance once (issue 9, kinds 5 and 9)', () => {
  it('keeps a deleting instance out of totals, findings and the list; counts a repeated one once', async () => {
    // Prepare
    rdsMock.on(DescribeDBInstancesCommand).resolves({
      DBInstances: [
        db('orders', 'eu-west-1'),
        db('old-reports', 'eu-west-1', { DBInstanceStatus: 'DELETING', PubliclyAccessible: true }),
        db('orders', 'eu-west-1'),
      ],
    });

    // Act
    const { value, summary } = await inventory(['eu-west-1']);

    // Assess
    expect(value).toMatchObject({
      instances: 1,
      deletingInstances: 1,
      duplicatesSkipped: 1,
      byStatus: { available: 1 },
    });
    expect(value.dbInstances.map((d) => d.dbInstanceIdentifier)).toEqual(['orders']);
    expect(value.findings.total).toBe(0);
    expect(summary).toContain('1 being deleted not counted');
  });
});

describe('aws_rds_inventory on the answer AWS documents (issue 9, kind 10: absent is unknown)', () => {
  it('raises no finding on settings the documented answer does not carry', async () => {
    // Prepare: DescribeDBInstances' documented example lacks encryption, exposure, backups, Multi-AZ and protection.
    rdsMock.on(DescribeDBInstancesCommand).resolves({ DBInstances: DOCUMENTED_DB_INSTANCES });

    // Act
    const { value, summary } = await inventory(['us-east-1']);

    // Assess
    expect(value.dbInstances).toEqual([
      expect.objectContaining({
        dbInstanceIdentifier: 'mydbinstancecf',
        engine: 'mysql',
        storageEncrypted: null,
        publiclyAccessible: null,
        backupRetentionDays: null,
        findings: [],
      }),
    ]);
    expect(value).toMatchObject({
      instances: 1,
      settingsUnknown: 1,
      storageUnencrypted: 0,
      backupsDisabled: 0,
    });
    expect(value.findings.total).toBe(0);
    expect(summary).toContain('settings missing from the answer for 1');
  });

  it('still judges the same instance once RDS answers the settings, with the controls they evidence', async () => {
    // Prepare
    rdsMock.on(DescribeDBInstancesCommand).resolves({
      DBInstances: [
        {
          ...DOCUMENTED_DB_INSTANCES[0],
          DBInstanceArn: 'arn:aws:rds:us-east-1:123456789012:db:mydbinstancecf',
          StorageEncrypted: false,
          PubliclyAccessible: true,
          BackupRetentionPeriod: 1,
          MultiAZ: true,
          DeletionProtection: true,
        },
      ],
    });

    // Act
    const { value } = await inventory(['us-east-1']);

    // Assess
    expect(value.findings.top.map((f) => [f.check, f.controls])).toEqual([
      ['rds_publicly_accessible', { securityHub: ['RDS.2'], cis: ['2.3.3'] }],
      ['rds_storage_unencrypted', { securityHub: ['RDS.3'], cis: ['2.3.1'] }],
    ]);
    expect(value.findings.top[0]?.id).toBe(
      findingId(
        'rds_publicly_accessible',
        'us-east-1',
        'arn:aws:rds:us-east-1:123456789012:db:mydbinstancecf',
      ),
    );
  });
});
