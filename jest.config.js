// Jest projects: unit (aws-sdk-client-mock), integration (real local servers on
// 127.0.0.1), infra (CDK Template assertions and cdk-nag), e2e (the synthesized
// state machine run by a local ASL interpreter), browser (the console in the OS's headless
// Chromium through playwright-core) and newcomer (the README's commands and configs run as
// written, from another directory, on the system's Node). Type checking is `tsc --noEmit`
// in `npm test`; ts-jest only transpiles (isolatedModules) so the suite stays fast.
// hyparquet, hyparquet-writer and hysnappy ship ES modules only; Jest's CommonJS runtime loads
// ESM natively only under --experimental-vm-modules, so they are transpiled to CommonJS.
const esmPackages = ['hyparquet', 'hyparquet-writer', 'hysnappy'];
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  [`/node_modules/(${esmPackages.join('|')})/.+\\.js$`]: [
    'ts-jest',
    { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2023' } },
  ],
};
const transformIgnorePatterns = [`/node_modules/(?!(${esmPackages.join('|')})/)`];
const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns,
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  setupFiles: ['<rootDir>/test/helpers/fake-aws-environment.ts'],
  ...extra,
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    project('unit'),
    project('integration', { setupFilesAfterEnv: ['<rootDir>/test/integration/timeout.ts'] }),
    project('infra'),
    project('e2e'),
    project('browser'),
    // The README's commands as child processes (npm start, cdk synth): minutes, not seconds.
    project('newcomer', { setupFilesAfterEnv: ['<rootDir>/test/newcomer/timeout.ts'] }),
  ],
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
  // CI machines are shared: keep workers low so timings inside tests stay sane.
  maxWorkers: process.env.CI ? 2 : '50%',
};
