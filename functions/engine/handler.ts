import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { LambdaToolInvoker } from '../dispatcher/lambda-invoker';
import { ORG_ACCOUNTS_TOOL } from '../runtime/ids';
import { logger } from '../runtime/logger';
import { runDataCredentials } from '../runtime/run-data-sessions';
import { s3WorkspaceProvider } from '../runtime/workspace-s3';
import { toolCatalog } from '../tools/catalog';
import { DISPATCHER_FUNCTION_ENV, dispatchedAccountDirectory } from './account-directory';
import { bundledEngineConfig } from './config';
import { DynamoDbRunRecords, tenantScopedRunRecords } from './dynamodb-run-records';
import { createEngine } from './engine';
import { BedrockModelClient, MODEL_CLIENT_SETTINGS } from './model-client';
import { workspacesOf } from './workspaces';

/** Milliseconds kept back from the invocation's remaining time when a model call is cut. */
const MODEL_CALL_MARGIN_MS = 5_000;

/** A required variable, read once at load: a missing one fails the init loudly. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`The engine function needs ${name}`);
  return value;
}

// Configuration and clients once per container. Run data is reached with the run's tenant's
// session of the run-data role (RUN_DATA_ROLE, run-data-sessions.ts), never the engine's own role.
const runData = runDataCredentials();
const workspaces = workspacesOf(s3WorkspaceProvider(required('WORKSPACE_BUCKET'), undefined, runData));
const dispatcherFunction = process.env[DISPATCHER_FUNCTION_ENV];
const dispatcher = dispatcherFunction
  ? new LambdaToolInvoker(new LambdaClient({}), () => dispatcherFunction)
  : undefined;
const engine = createEngine({
  config: bundledEngineConfig(),
  catalog: toolCatalog,
  workspaces,
  records: runData
    ? tenantScopedRunRecords(required('RUN_RECORDS_TABLE'), runData)
    : new DynamoDbRunRecords(required('RUN_RECORDS_TABLE')),
  model: new BedrockModelClient(new BedrockRuntimeClient(MODEL_CLIENT_SETTINGS)),
  logger,
  ...(dispatcher
    ? {
        accounts: dispatchedAccountDirectory(
          (envelope) => dispatcher.invoke(toolCatalog.get(ORG_ACCOUNTS_TOOL), envelope),
          workspaces,
        ),
      }
    : {}),
});

/**
 * The scenario engine's Lambda: the bookkeeping Task states of every scenario
 * run (functions/engine/engine.ts). A model call is aborted shortly before the
 * invocation would time out, so the failure is reported rather than cut off.
 */
export async function handler(event: unknown, context: Context): Promise<unknown> {
  logger.addContext(context);
  const signal = AbortSignal.timeout(
    Math.max(1_000, context.getRemainingTimeInMillis() - MODEL_CALL_MARGIN_MS),
  );
  return engine(event, signal);
}
