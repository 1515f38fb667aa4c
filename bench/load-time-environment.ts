import { PLATFORM_FUNCTION_ENVIRONMENT } from '../lib/platform-function';

/** What every function reads at load time, as the CDK sets it (lib/), with the values of a deployment. */
export function loadTimeEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...PLATFORM_FUNCTION_ENVIRONMENT,
    AWS_REGION: 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    SECRET_REFS_TABLE: 'etp-secret-references',
    // The engine's (lib/engine-function.ts) and the write tools' (lib/tool-function.ts).
    WORKSPACE_BUCKET: 'etp-run-workspaces',
    RUN_RECORDS_TABLE: 'etp-run-records',
    IDEMPOTENCY_TABLE: 'etp-idempotency',
  };
}
