/**
 * What AWS tools run against in the benchmark: a tenant whose `aws_default`
 * secret holds static keys (the example pair of the AWS docs: no STS call, no
 * credential chain; the SDK clients are mocked, so the keys are never used),
 * and the generated account.
 */
import type { ToolContextServices } from '../functions/runtime/context';
import { InMemorySecretReferenceStore } from '../functions/runtime/secrets/memory-store';
import { defaultProviders, EnvSecretProvider } from '../functions/runtime/secrets/providers';
import { SecretResolver } from '../functions/runtime/secrets/resolver';
import { toolHostServices } from '../functions/runtime/tool-host';
import { DEFAULT_ENABLED_REGIONS, unevenAccount } from '../test/helpers/ec2-pages';

/** The account every AWS figure is measured on: 10,000 instances over the 17 default regions. */
export const BENCH_ACCOUNT = unevenAccount(10_000, DEFAULT_ENABLED_REGIONS);

/** Simulated latency of each AWS call, in ms. */
export const BENCH_LATENCY_MS = 50;

/** The access-key example of the AWS docs ("Managing access keys for IAM users"), home region us-east-1. */
const EXAMPLE_KEYS = {
  access_key_id: 'AKIAIOSFODNN7EXAMPLE',
  secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
};

/** Tool services whose tenant `default` reaches AWS with static keys in `us-east-1`. */
export function staticKeyServices(): ToolContextServices {
  const store = new InMemorySecretReferenceStore([
    { tenant_id: 'default', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'BENCH_AWS_DEFAULT' },
  ]);
  const providers = {
    ...defaultProviders(),
    env: new EnvSecretProvider({ BENCH_AWS_DEFAULT: JSON.stringify(EXAMPLE_KEYS) }),
  };
  return toolHostServices(new SecretResolver(store, { providers }));
}

/** The account id of every generated ARN. */
export const ACCOUNT_ID = '123456789012';

/** When every generated resource was created. */
export const CREATED = new Date('2024-03-01T09:00:00Z');

/**
 * One `DBInstance` of DescribeDBInstances (RDS API Reference, "DBInstance"): a
 * hardened one is Multi-AZ, encrypted, private, backed up 7 days and protected
 * from deletion; the other is none of these.
 */
export function rdsInstance(identifier: string, region: string, hardened: boolean, engine = 'postgres') {
  return {
    DBInstanceIdentifier: identifier,
    DBInstanceArn: `arn:aws:rds:${region}:${ACCOUNT_ID}:db:${identifier}`,
    Engine: engine,
    EngineVersion: '16.3',
    DBInstanceClass: 'db.m6g.large',
    DBInstanceStatus: 'available',
    AllocatedStorage: 100,
    StorageType: 'gp3',
    AvailabilityZone: `${region}a`,
    InstanceCreateTime: CREATED,
    MultiAZ: hardened,
    StorageEncrypted: hardened,
    PubliclyAccessible: !hardened,
    BackupRetentionPeriod: hardened ? 7 : 0,
    DeletionProtection: hardened,
  };
}
