import { logicalIdOf, synthesizePlatform } from '../helpers/cdk';

// One synthesis for the file: every case reads the same default stack, none changes it.
const platform = synthesizePlatform();

describe('the secret-reference table', () => {
  it('is keyed by tenant_id and secret_name, billed per request', () => {
    // Prepare
    const { template } = platform;

    // Act
    const tables = template.findResources('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [
          { AttributeName: 'tenant_id', KeyType: 'HASH' },
          { AttributeName: 'secret_name', KeyType: 'RANGE' },
        ],
      },
    });

    // Assess
    expect(Object.values(tables)).toHaveLength(1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'tenant_id', KeyType: 'HASH' },
        { AttributeName: 'secret_name', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'tenant_id', AttributeType: 'S' },
        { AttributeName: 'secret_name', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('has point-in-time recovery and encryption at rest with the AWS managed key', () => {
    // Prepare
    const { template } = platform;

    // Act
    const [table] = Object.values(
      template.findResources('AWS::DynamoDB::Table', {
        Properties: { KeySchema: [{ AttributeName: 'tenant_id' }, { AttributeName: 'secret_name' }] },
      }),
    );

    // Assess
    expect(table?.Properties).toMatchObject({
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table?.Properties.SSESpecification.KMSMasterKeyId).toBeUndefined();
  });

  it('is kept when the stack is deleted or the table replaced, and refuses DeleteTable', () => {
    // Prepare
    const { template } = platform;

    // Act
    const [table] = Object.values(template.findResources('AWS::DynamoDB::Table'));

    // Assess
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(table?.Properties.DeletionProtectionEnabled).toBe(true);
  });

  it('has its name as a stack output', () => {
    // Prepare
    const { stack, template } = platform;

    // Act
    const output = template.findOutputs('SecretReferenceTableName');

    // Assess
    expect(output.SecretReferenceTableName?.Value).toEqual(
      stack.resolve(stack.platform.secretReferenceTable.tableName),
    );
  });
});

describe('the idempotency table', () => {
  it('holds exactly-once records keyed by id, expiring by TTL, named to write tools only', () => {
    // Prepare
    const { stack, template } = platform;
    const resources = template.toJSON().Resources;

    // Act
    const withTable = Object.values(stack.platform.toolFunctions)
      .filter(
        (fn) =>
          'IDEMPOTENCY_TABLE' in resources[logicalIdOf(fn.lambdaFunction)].Properties.Environment.Variables,
      )
      .map((fn) => fn.spec.name);

    // Assess
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    const writers = Object.values(stack.platform.toolFunctions)
      .filter((fn) => fn.spec.sideEffects === 'write')
      .map((fn) => fn.spec.name);
    expect(writers.length).toBeGreaterThan(0);
    expect(withTable.sort()).toEqual(writers.sort());
  });
});
