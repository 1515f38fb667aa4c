/**
 * The cold-start baseline of a function (bench/cold-start.ts) holds the SDK
 * clients of its own work only: not the clients the platform loads on a call's
 * behalf when it needs them (the task-token answer's Step Functions, the run
 * workspaces' S3, the idempotency records' DynamoDB, the tenant sessions' STS),
 * though the function's bundle holds them.
 */
import {
  bundle,
  type LambdaEntry,
  lambdaEntries,
  ownSdkClientsIn,
  sdkClientsIn,
} from '../../../bench/bundles';

/** esbuild on a shared 2-core machine, three bundles. */
const BUNDLING_TIMEOUT_MS = 120_000;

function entryOf(name: string): LambdaEntry {
  const entry = lambdaEntries().find((e) => e.name === name);
  if (!entry) throw new Error(`no function ${name} in bench/bundles.ts lambdaEntries()`);
  return entry;
}

async function clientsOf(name: string): Promise<{ own: string[]; bundled: string[] }> {
  const entry = entryOf(name);
  const bundled = await bundle(`test-own-clients-${name}`, entry);
  return { own: ownSdkClientsIn(bundled, entry.entry), bundled: sdkClientsIn(bundled) };
}

describe('a function’s own SDK clients', () => {
  it(
    'leave out the platform’s on-demand clients of an AWS read tool',
    async () => {
      // Act
      const { own, bundled } = await clientsOf('aws_cost_anomalies');

      // Assess
      expect(own).toEqual(['@aws-sdk/client-cost-explorer']);
      expect(bundled).toEqual(
        expect.arrayContaining(['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-sfn']),
      );
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    'are none for a REST write tool, whose idempotency records are the platform’s',
    async () => {
      // Act
      const { own, bundled } = await clientsOf('github_create_issue');

      // Assess
      expect(own).toEqual([]);
      expect(bundled).toEqual(expect.arrayContaining(['@aws-sdk/client-dynamodb', '@aws-sdk/client-sfn']));
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    'keep the dispatcher’s own Lambda, S3 and Step Functions (it answers task tokens itself)',
    async () => {
      // Act
      const { own } = await clientsOf('dispatcher');

      // Assess
      expect(own).toEqual(['@aws-sdk/client-lambda', '@aws-sdk/client-s3', '@aws-sdk/client-sfn']);
    },
    BUNDLING_TIMEOUT_MS,
  );
});
