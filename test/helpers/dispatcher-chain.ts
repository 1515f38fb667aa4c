/**
 * The deployed call chain, every hop real and local: the dispatcher's Lambda
 * handler (configured as the CDK bundles it) → the Lambda Invoke API on
 * 127.0.0.1 → real tool function handlers → their secret references in DynamoDB
 * (dynalite) → a Slack Web API on 127.0.0.1. Only the endpoints differ from AWS,
 * through the SDK's standard `AWS_ENDPOINT_URL_<SERVICE>` variables.
 */
import type { Context } from 'aws-lambda';
import type { DispatcherConfigInput } from '../../functions/dispatcher/config';
import { DynamoDbSecretReferenceStore } from '../../functions/runtime/secrets/dynamodb-store';
import { toolCatalog } from '../../functions/tools/catalog';
import {
  createIdempotencyTable,
  createSecretReferenceTable,
  type LocalDynamoDb,
  startDynalite,
} from './dynalite';
import { bundleDispatcherConfig } from './events';
import { type LocalLambda, startLambdaServer } from './lambda-server';
import { FAKE_AWS_CREDENTIALS } from './loopback-server';
import { type LocalSlack, startSlackServer } from './slack-server';

/** The dispatcher's Lambda handler, as the Lambda runtime calls it. */
export type DispatcherHandler = (event: unknown, context: Context) => Promise<unknown>;

/** A started chain; `stop()` stops every server it started. */
export interface DispatcherChain {
  readonly dynamo: LocalDynamoDb;
  readonly lambda: LocalLambda;
  readonly slack: LocalSlack;
  readonly dispatcher: DispatcherHandler;
  stop(): Promise<void>;
}

/** What the chain is built with. */
export interface DispatcherChainOptions {
  /** The tenant whose `slack_default` secret (the local Slack's bot token) is referenced. */
  readonly tenant: string;
  /** The function tools behind the Lambda API, by name (real handlers from the catalog). */
  readonly tools: readonly string[];
  /** The dispatcher's configuration beyond the tool function name prefix (`etp-`). */
  readonly config: Omit<DispatcherConfigInput, 'toolFunctionNamePrefix'>;
  /** The tenant's other secrets (name → value: a REST fake's token), referenced like its Slack one. @default none */
  readonly secrets?: Readonly<Record<string, unknown>>;
}

/**
 * Starts the servers, seeds the tenant's Slack secret reference, sets the
 * environment the CDK sets, and loads the handlers (they read their
 * configuration when loaded; with require: Jest runs CommonJS).
 */
export async function startDispatcherChain(options: DispatcherChainOptions): Promise<DispatcherChain> {
  const [dynamo, lambda, slack] = await Promise.all([
    startDynalite(),
    startLambdaServer(),
    startSlackServer(),
  ]);
  const table = await createSecretReferenceTable(dynamo.client);
  // Write tools (the Slack posts) record each call once.
  const idempotencyTable = await createIdempotencyTable(dynamo.client);
  const secretVariable = `ETP_TEST_${options.tenant.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_SLACK`;
  await new DynamoDbSecretReferenceStore(table, dynamo.client).put({
    tenant_id: options.tenant,
    secret_name: 'slack_default',
    ref_kind: 'env',
    ref_value: secretVariable,
  });
  for (const [name, value] of Object.entries(options.secrets ?? {})) {
    const variable = `ETP_TEST_${options.tenant}_${name}`.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    await new DynamoDbSecretReferenceStore(table, dynamo.client).put({
      tenant_id: options.tenant,
      secret_name: name,
      ref_kind: 'env',
      ref_value: variable,
    });
    process.env[variable] = JSON.stringify(value);
  }
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SECRET_REFS_TABLE: table,
    IDEMPOTENCY_TABLE: idempotencyTable,
    SLACK_API_URL: slack.apiUrl,
    [secretVariable]: JSON.stringify({ bot_token: slack.botToken }),
  });
  bundleDispatcherConfig({ ...options.config, toolFunctionNamePrefix: 'etp-' });
  for (const name of options.tools) {
    const entry = toolCatalog.functionTools().find((candidate) => candidate.spec.name === name);
    if (!entry) throw new Error(`${name} is not a function tool of the catalog`);
    const module = jest.requireActual<{ handler: (event: unknown, context: Context) => unknown }>(
      `../../functions/tools/${entry.implementation}`,
    );
    lambda.setFunction(`etp-${name}`, module.handler);
  }
  const dispatcher = jest.requireActual<typeof import('../../functions/dispatcher/handler')>(
    '../../functions/dispatcher/handler',
  ).handler as DispatcherHandler;
  return {
    dynamo,
    lambda,
    slack,
    dispatcher,
    stop: async () => {
      await Promise.all([dynamo.stop(), lambda.stop(), slack.stop()]);
    },
  };
}
