/**
 * The SDK client classes the test harnesses use for the platform's own calls (the
 * dispatcher invoking a tool's function, the run records and tables on dynalite,
 * the engine's model): loaded in a module registry of their own
 * (`jest.isolateModules`), so they are other classes than the ones a test file
 * imports. aws-sdk-client-mock's `mockClient(LambdaClient)` stubs the `send` of
 * the test's class — a tool's test mocking its own clients — and cannot reach
 * these: a new tool that reads Lambda or DynamoDB breaks no unrelated e2e run.
 */
import type * as BedrockRuntime from '@aws-sdk/client-bedrock-runtime';
import type * as DynamoDb from '@aws-sdk/client-dynamodb';
import type * as Lambda from '@aws-sdk/client-lambda';

/** A module as loaded in a registry of its own: fresh classes, out of reach of the test file's mocks. */
function isolated<M extends object>(name: string): M {
  let loaded: M | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<M>(name);
  });
  if (!loaded) throw new Error(`${name} could not be loaded`);
  return loaded;
}

let lambda: typeof Lambda | undefined;
let dynamoDb: typeof DynamoDb | undefined;
let bedrockRuntime: typeof BedrockRuntime | undefined;

/** The harness's own `LambdaClient` class. */
export function platformLambdaClient(): typeof Lambda.LambdaClient {
  lambda ??= isolated<typeof Lambda>('@aws-sdk/client-lambda');
  return lambda.LambdaClient;
}

/** The harness's own `DynamoDBClient` class (and its commands, which a client of another registry also sends). */
export function platformDynamoDb(): typeof DynamoDb {
  dynamoDb ??= isolated<typeof DynamoDb>('@aws-sdk/client-dynamodb');
  return dynamoDb;
}

/** The harness's own `BedrockRuntimeClient` class. */
export function platformBedrockRuntimeClient(): typeof BedrockRuntime.BedrockRuntimeClient {
  bedrockRuntime ??= isolated<typeof BedrockRuntime>('@aws-sdk/client-bedrock-runtime');
  return bedrockRuntime.BedrockRuntimeClient;
}
