/**
 * The import rules of the deployed code, the CDK app and the CLI, checked by
 * `npm run deps` (part of `npm test`). A rule broken is a failed test.
 * dependency-cruiser: https://github.com/sverweij/dependency-cruiser (rules reference).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycles, type-only imports included: a cycle hides which module owns a contract and ' +
        'breaks initialisation order under CommonJS. Extract what both sides share into a leaf module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'functions-stay-deployable',
      severity: 'error',
      comment: 'functions/ is what Lambda runs: it never imports the CDK app (lib/) or the workstation CLI (bin/).',
      from: { path: '^functions/' },
      to: { path: '^(lib|bin)/' },
    },
    {
      name: 'cdk-without-cli',
      severity: 'error',
      comment: 'lib/ is synth-time code: it never imports the CLI (bin/).',
      from: { path: '^lib/' },
      to: { path: '^bin/' },
    },
    {
      name: 'runtime-knows-no-connector',
      severity: 'error',
      comment:
        'functions/runtime is what every connector shares: it never imports a tool, the catalog or the dispatcher.',
      from: { path: '^functions/runtime/' },
      to: { path: '^functions/(tools|dispatcher)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type cycle is still a cycle of contracts.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)(node_modules|cdk\\.out)/' },
  },
};
