#!/usr/bin/env node
// The `etp` command (package.json "bin"; `npm run -s etp -- …`, `npm start`, `npx etp …`, or
// `<project>/node_modules/.bin/node <project>/bin/etp.js …` from anywhere, as an MCP client starts it).
// A CommonJS shim: it registers tsx so the TypeScript CLI runs without a build step.
const path = require('node:path');

// One path rule for every way of starting etp (docs/cli.md, "Paths"): a relative path on the
// command line is resolved from the directory the command was typed in. `npm run etp` runs its
// script from the project's root and says where it was called from in INIT_CWD; `npx etp` keeps
// the caller's directory (and sets the same INIT_CWD).
const PROJECT_ROOT = path.join(__dirname, '..');
if (
  process.env.INIT_CWD &&
  process.env.npm_package_json &&
  path.dirname(process.env.npm_package_json) === PROJECT_ROOT &&
  process.env.INIT_CWD !== process.cwd()
) {
  try {
    process.chdir(process.env.INIT_CWD);
  } catch {
    // The directory is gone or unreadable: stay in the project's root, as npm left it.
  }
}

// `etp --version` needs nothing but package.json: answered before anything else loads.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  process.stdout.write(`${require('../package.json').version}\n`);
  process.exit(0);
}

// The CLI needs Node 24 (the Lambda runtime's; aws-local-stepfunctions needs 22 or later). Started by
// an older Node (a system Node 20, an MCP client's `node`), it runs itself on the project's own Node 24,
// which `npm ci` installs (the `node` devDependency), with the same arguments, streams and directory.
const REQUIRED_NODE_MAJOR = 24;
if (Number(process.versions.node.split('.')[0]) < REQUIRED_NODE_MAJOR) runOnProjectNode();
else start();

function runOnProjectNode() {
  const projectNode = path.join(PROJECT_ROOT, 'node_modules', 'node', 'bin', 'node');
  if (!require('node:fs').existsSync(projectNode)) {
    process.stderr.write(
      `error: etp needs Node.js ${REQUIRED_NODE_MAJOR} or later (this is ${process.version}) and the project's ` +
        `own Node ${REQUIRED_NODE_MAJOR} is not installed at ${projectNode}: run npm ci in ${PROJECT_ROOT}\n`,
    );
    process.exit(1);
  }
  const child = require('node:child_process').spawn(projectNode, [__filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  // The child shares the terminal's process group (Ctrl-C reaches both); a signal sent to this
  // process alone (an MCP client stopping its server) is passed on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`error: could not start ${projectNode}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (require('node:os').constants.signals[signal] ?? 0));
  });
}

function start() {
  // V8's code cache on disk (Node's module.enableCompileCache, in the OS temporary directory): the
  // modules a command loads (zod, the MCP SDK, the transformed TypeScript) are compiled once, not at
  // every start (`npm run bench`, "CLI start-up").
  require('node:module').enableCompileCache?.();
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

  // Packages loaded before tsx's hook, at Node's own speed: through the hook every file of a package
  // is looked at again, and `etp mcp`'s MCP SDK (with its zod and ajv, about 200 files) took about
  // half of its time to tools/list that way (`npm run bench`, "CLI start-up"; docs/cli.md).
  const command = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
  const preloaded =
    command === 'mcp'
      ? [
          'commander',
          '@modelcontextprotocol/sdk/server/index.js',
          '@modelcontextprotocol/sdk/server/stdio.js',
        ]
      : ['commander'];
  for (const name of preloaded) require(name);

  // tsx's CommonJS hook: require() of .ts files, including the tool implementations that
  // functions/tools/implementations.ts loads lazily.
  require('tsx/cjs/api').register();
  require('./etp.ts');
}
