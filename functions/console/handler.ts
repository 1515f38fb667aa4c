/**
 * The console API's Lambda, behind an API Gateway HTTP API whose JWT authorizer
 * has checked the caller's Cognito ID token: the claims name the user and their
 * groups (`tenant-<id>`), the router does the rest (routes.ts). A tenant's secret
 * references (never values), run workspaces, questions and secrets' tags are
 * reached with that tenant's session of the console tenant role (tenant-sessions.ts);
 * the function's own role answers questions, starts the scenarios' executions and
 * reads their histories (the live page); lib/console.ts grants exactly that.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DynamoDbRunRecords } from '../engine/dynamodb-run-records';
import { awsRequestHandler } from '../runtime/aws/http-timeouts';
import { logger } from '../runtime/logger';
import { DynamoDbSecretReferenceStore } from '../runtime/secrets/dynamodb-store';
import { s3WorkspaceProvider } from '../runtime/workspace-s3';
import { userOfClaims } from './authz';
import type { ConsoleBackend } from './backend';
import { bundledConsoleCatalog } from './config';
import { executionHistoryFeed } from './execution-history';
import { recordsQuestionDesk } from './questions';
import { handleConsoleRequest } from './routes';
import { SCENARIO_STATE_MACHINES_ENV, scenarioStateMachines, stepFunctionsRunStarter } from './run-starter';
import { s3RunIndex } from './s3-run-index';
import { secretsManagerTagReader } from './secret-tags';
import { CONSOLE_TENANT_ROLE_ENV, consoleTenantCredentials, perTenant } from './tenant-sessions';

/** Largest request body accepted, in bytes: a reference or an answer is a few KB. */
const MAX_BODY_BYTES = 65_536;

/** A required variable, read once at load: a missing one fails the init loudly. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`The console function needs ${name}`);
  return value;
}

// Configuration and clients once per container.
const bucket = required('RUN_BUCKET');
const sfn = new SFNClient({ requestHandler: awsRequestHandler() });
const catalog = bundledConsoleCatalog();
const stateMachines = scenarioStateMachines(process.env[SCENARIO_STATE_MACHINES_ENV]);
const referencesTable = required('SECRET_REFS_TABLE');
const recordsTable = required('RUN_RECORDS_TABLE');
const tenantCredentials = consoleTenantCredentials(required(CONSOLE_TENANT_ROLE_ENV));
const answer = (input: ConstructorParameters<typeof SendTaskSuccessCommand>[0]) =>
  sfn.send(new SendTaskSuccessCommand(input));
const unscoped = (): never => {
  throw new Error('The console reaches tenant data only through a tenant route');
};
const backend: ConsoleBackend = {
  mode: 'deployed',
  catalog,
  // The function's own role reaches no tenant's data: every tenant route goes through forTenant.
  references: {
    get: unscoped,
    list: unscoped,
    put: unscoped,
    delete: unscoped,
  },
  secretTags: unscoped,
  runs: { scenarios: unscoped, runIds: unscoped },
  workspaces: unscoped,
  questions: { open: unscoped, answer: unscoped },
  starter: stepFunctionsRunStarter({ catalog, stateMachines, client: sfn }),
  history: executionHistoryFeed({ scenarios: catalog.scenarios, stateMachines, client: sfn }),
  forTenant: perTenant((tenant): ConsoleBackend => {
    const credentials = tenantCredentials(tenant);
    const dynamodb = new DynamoDBClient({ requestHandler: awsRequestHandler(), credentials });
    return {
      ...backend,
      references: new DynamoDbSecretReferenceStore(referencesTable, dynamodb),
      secretTags: secretsManagerTagReader(credentials),
      runs: s3RunIndex(bucket, new S3Client({ requestHandler: awsRequestHandler(), credentials })),
      workspaces: s3WorkspaceProvider(bucket, { credentials }),
      questions: recordsQuestionDesk(new DynamoDbRunRecords(recordsTable, dynamodb), answer),
    };
  }),
  // Deployed, the tenants a user sees are those their groups name, nothing more.
  knownTenants: async () => [],
};

const json = (statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  body: JSON.stringify(body),
});

/** The body as JSON, or a reason it cannot be read. */
function bodyOf(event: APIGatewayProxyEventV2WithJWTAuthorizer): { body?: unknown; problem?: string } {
  if (!event.body) return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    return { problem: `the body exceeds ${MAX_BODY_BYTES} bytes` };
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { problem: 'the body is not JSON' };
  }
}

/** One API request (HTTP API payload format 2.0). */
export async function handler(
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
): Promise<APIGatewayProxyStructuredResultV2> {
  const user = userOfClaims(event.requestContext?.authorizer?.jwt?.claims);
  if (!user) return json(401, { error: { code: 'auth_failed', message: 'Sign in first' } });
  const { body, problem } = bodyOf(event);
  if (problem) return json(400, { error: { code: 'invalid_args', message: problem } });
  const response = await handleConsoleRequest(
    {
      method: event.requestContext.http.method,
      path: event.rawPath,
      query: event.queryStringParameters ?? {},
      body,
      user,
    },
    backend,
  );
  if (response.status >= 500)
    logger.error('console API request failed', { path: event.rawPath, status: response.status });
  return json(response.status, response.body);
}
