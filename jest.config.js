// Jest projects: unit (aws-sdk-client-mock), integration (real local servers on
// 127.0.0.1), infra (CDK Template assertions and cdk-nag) and e2e (the synthesized
// state machine run by a local ASL interpreter). Type checking is `tsc --noEmit`
// in `npm test`; ts-jest only transpiles (isolatedModules) so the suite stays fast.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform,
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  setupFiles: ['<rootDir>/test/helpers/fake-aws-environment.ts'],
  ...extra,
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [project('unit'), project('integration'), project('infra'), project('e2e')],
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
  // CI machines are shared: keep workers low so timings inside tests stay sane.
  maxWorkers: process.env.CI ? 2 : '50%',
};
