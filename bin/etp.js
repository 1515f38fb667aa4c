#!/usr/bin/env node
// The `etp` command (package.json "bin"; `npm run etp -- …`, `npm start`, `npx etp …`).
// A CommonJS shim: it registers tsx so the TypeScript CLI runs without a build step.

const REQUIRED_NODE_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_NODE_MAJOR) {
  process.stderr.write(
    `error: etp needs Node.js ${REQUIRED_NODE_MAJOR} or later (this is ${process.version}); ` +
      'run it through npm run etp, npm start or npx etp, which use the node devDependency\n',
  );
  process.exit(1);
}

// Powertools writes JSON logs for CloudWatch; on a terminal they would bury the CLI's own
// output. Only errors are logged unless POWERTOOLS_LOG_LEVEL is set or --verbose is given.
// Set before anything loads: the logger reads its level when it is created.
if (!process.env.POWERTOOLS_LOG_LEVEL && !process.argv.includes('--verbose')) {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
}

// Logs never reach stdout, which carries only results (tables, JSON, a run's progress): with
// POWERTOOLS_DEV the Powertools loggers write through the global console, sent here to stderr.
process.env.POWERTOOLS_DEV = 'true';
const { Console } = require('node:console');
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

// tsx's CommonJS hook: require() of .ts files, including the tool implementations that
// functions/tools/implementations.ts loads lazily.
require('tsx/cjs/api').register();
require('./etp.ts');
