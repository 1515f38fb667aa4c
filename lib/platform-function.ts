import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ToolRuntimeSettings } from '../functions/runtime/spec';

/** The repository root: esbuild's project root and the home of the lockfile. */
const PROJECT_ROOT = path.join(__dirname, '..');

/** Lambda memory when the caller names none, in MB (ToolRuntimeSettings' documented default). */
export const DEFAULT_MEMORY_SIZE_MB = 256;

/** Lambda timeout when the caller names none, in seconds (ToolRuntimeSettings' documented default). */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * Environment every platform function gets; a caller's variable of the same
 * name wins. `--enable-source-maps` makes stack traces in the logs point at the
 * TypeScript sources (the bundles are minified).
 */
export const PLATFORM_FUNCTION_ENVIRONMENT: Readonly<Record<string, string>> = {
  NODE_OPTIONS: '--enable-source-maps',
};

/** Properties of a {@link PlatformFunction}. Memory and timeout come from a tool spec's `runtime`. */
export interface PlatformFunctionProps extends ToolRuntimeSettings {
  /** Absolute path of the TypeScript entry file; it must export `handler`. */
  readonly entry: string;
  /** What the function does, shown in the Lambda console. @default - no description */
  readonly description?: string;
  /**
   * Variables merged over {@link PLATFORM_FUNCTION_ENVIRONMENT} (a key given here wins).
   * @default - the platform defaults only
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** How long the function's log group keeps events. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The one set of function defaults used by the dispatcher and every tool:
 * Node.js 24 (`nodejs24.x`, the newest runtime CDK knows) on arm64; an esbuild
 * bundle (local esbuild, no Docker) that is minified, CommonJS, `keepNames` so
 * error classes keep their names, with source maps but without sources content,
 * and with the AWS SDK v3 bundled rather than taken from the runtime, so a
 * deployed function runs the SDK versions the lockfile pins and tests exercise,
 * and cold starts are measured on what ships; an explicit log group with
 * retention; its own role holding only the rights to write to that log group
 * (no managed policy), to which callers add exactly what the function needs.
 *
 * @example
 * const fn = new PlatformFunction(this, 'Dispatcher', {
 *   entry: path.join(__dirname, '../functions/dispatcher/handler.ts'),
 *   timeoutSeconds: 130,
 *   environment: { POWERTOOLS_SERVICE_NAME: 'dispatcher' },
 * });
 * fn.lambdaFunction.grantInvoke(stateMachine);
 */
export class PlatformFunction extends Construct {
  /** The function. */
  public readonly lambdaFunction: NodejsFunction;
  /** Its own execution role: log-group writes only, plus whatever the caller grants. */
  public readonly role: Role;
  /** Its log group. Kept when the stack is deleted (the CloudWatch Logs default). */
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every group of the account):
    // create streams in and put events to this function's own log group only.
    this.logGroup.grantWrite(this.role);
    this.lambdaFunction = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySizeMb ?? DEFAULT_MEMORY_SIZE_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      role: this.role,
      logGroup: this.logGroup,
      environment: { ...PLATFORM_FUNCTION_ENVIRONMENT, ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        keepNames: true,
        target: 'node24',
        format: OutputFormat.CJS,
        externalModules: [],
      },
    });
  }
}
