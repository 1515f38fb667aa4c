/**
 * What every function reads at load time, as the CDK sets it (lib/), with the
 * values of a deployment. No `NODE_OPTIONS`: the platform sets none (stack traces
 * are mapped by the module injected into each bundle, not by `--enable-source-maps`).
 */
export function loadTimeEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    SECRET_REFS_TABLE: 'etp-secret-references',
    // The engine's (lib/engine-function.ts) and the write tools' (lib/tool-function.ts).
    WORKSPACE_BUCKET: 'etp-run-workspaces',
    RUN_RECORDS_TABLE: 'etp-run-records',
    IDEMPOTENCY_TABLE: 'etp-idempotency',
  };
}
