import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { Command } from 'commander';
import { resolveInput } from '../../functions/engine/inputs';
import { workspacesOf } from '../../functions/engine/workspaces';
import { awsRequestHandler } from '../../functions/runtime/aws/http-timeouts';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { assertIdentifier, newRunId, RUN_ID, TENANT_ID } from '../../functions/runtime/ids';
import { LOCAL_DIR_ENV } from '../../functions/runtime/local-workspace-dir';
import { redactString } from '../../functions/runtime/redact';
import { toolCatalog } from '../../functions/tools/catalog';
import {
  checkScenarioFile,
  findScenario,
  loadScenarios,
  SCENARIOS_DIR,
  ScenarioValidationError,
  scenarioWarnings,
} from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';
import { answersFile, scriptedAnswers, terminalAnswers } from '../local/local-answers';
import { createLocalDispatcher, localSecretReferences } from '../local/local-dispatcher';
import { createLocalEngine, localRunId, runScenarioLocally } from '../local/local-run';
import { FileRunRecords } from '../local/local-run-records';
import { localWorkspaceProvider } from '../local/local-workspace';
import { DEFAULT_STACK_NAME } from '../stack-name';
import { type CliRun, EXIT_FAILED } from './io';
import {
  jsonObjectArgument,
  localRunPlaces,
  MODEL_ENDPOINT_ENV,
  secretRefsTable,
  stackNameArgument,
  stateMachineArnArgument,
} from './options';
import { createRunProgress, formatSummary } from './progress';
import { formatTable } from './text';

/** The variable naming the folder of local runs' workspaces and records when `--local-dir` is not given. */
/** The variable naming the folder of scenario files, for trying a scenario before it joins functions/scenarios. */
export const SCENARIOS_DIR_ENV = 'ETP_SCENARIOS_DIR';

interface RunOptions {
  readonly local?: boolean;
  readonly input: Record<string, unknown>;
  readonly tenant?: string;
  readonly runId?: string;
  readonly table?: string;
  readonly json?: boolean;
  readonly modelEndpoint?: string;
  readonly answers?: string;
  readonly localDir?: string;
}

interface StartOptions {
  readonly tenant: string;
  readonly input: Record<string, unknown>;
  readonly runId?: string;
  readonly stack: string;
  readonly stateMachineArn?: string;
}

/** The input of a run: `--input` with `--tenant` over it, checked against the scenario's inputs. */
function runInput(scenario: Scenario, input: Record<string, unknown>, tenant: string | undefined) {
  // Checked before the run starts: a bad tenant or input would fail the run's first state instead.
  if (tenant !== undefined) assertIdentifier(TENANT_ID, tenant, '--tenant');
  return resolveInput(scenario, { ...input, ...(tenant !== undefined ? { tenant } : {}) });
}

/** A run id for a deployed run: `run-<UTC timestamp>-<6 hex chars>` (the execution name). */
export function deployedRunId(now: Date = new Date()): string {
  return newRunId('run', now);
}

/**
 * `etp scenario list|validate|run|start`: the scenario definitions, their
 * check, a local run of the very definition Step Functions runs, and the start
 * of a deployed run.
 */
export function registerScenarioCommands(program: Command, run: CliRun): void {
  const { io } = run;
  const scenarios = () => loadScenarios(toolCatalog, io.env[SCENARIOS_DIR_ENV] || SCENARIOS_DIR);
  const scenario = program
    .command('scenario')
    .description('List, validate, run (locally) and start scenarios');

  scenario
    .command('list')
    .description('List the scenarios: levels, inputs (with defaults) and description')
    .action(() => {
      io.out(
        formatTable(
          ['name', 'levels', 'inputs', 'description'],
          scenarios().map((s) => [
            s.name,
            s.levels.map((level) => `${level.name} (${level.kind})`).join(' -> '),
            Object.entries(s.inputs)
              .map(([name, input]) =>
                input.default === undefined
                  ? `${name}: ${input.type}`
                  : `${name}=${JSON.stringify(input.default)}`,
              )
              .join(', '),
            s.description,
          ]),
        ),
      );
    });

  scenario
    .command('validate')
    .description('Check a scenario (by name, or a YAML file) and print every problem found')
    .argument('<name|file>', 'a scenario name (etp scenario list) or the path of a scenario YAML file')
    .action((target: string) => {
      const isFile = target.endsWith('.yaml') || target.endsWith('.yml') || target.includes(path.sep);
      if (!isFile) {
        // The whole folder is checked: a typo in another file fails the synth too.
        let loaded: Scenario[];
        try {
          loaded = scenarios();
        } catch (err) {
          if (!(err instanceof ScenarioValidationError)) throw err;
          io.err(`${err.message}\n`);
          run.exitCode = EXIT_FAILED;
          return;
        }
        const chosen = findScenario(loaded, target);
        for (const warning of scenarioWarnings(chosen, toolCatalog)) io.err(`warning: ${warning}\n`);
        io.out(
          `${chosen.name}: valid (${chosen.levels.map((level) => `${level.name} (${level.kind})`).join(' -> ')})\n`,
        );
        return;
      }
      if (!existsSync(target) || !statSync(target).isFile()) {
        throw new InvalidArgsError(
          `${target}: no such file (give a scenario name or the path of a YAML file)`,
        );
      }
      const check = checkScenarioFile(path.resolve(target), toolCatalog);
      if (check.problems.length > 0 || !check.scenario) {
        // One problem per line: every one of them, each saying what is accepted.
        io.err(`${new ScenarioValidationError(check.problems).message}\n`);
        run.exitCode = EXIT_FAILED;
        return;
      }
      for (const warning of check.warnings ?? []) io.err(`warning: ${warning}\n`);
      io.out(
        `${check.scenario.name}: valid (${check.scenario.levels.map((level) => `${level.name} (${level.kind})`).join(' -> ')})\n`,
      );
    });

  scenario
    .command('run')
    .description('Run a scenario: --local executes its state machine definition in this process')
    .argument('<name>', 'scenario name (etp scenario list)')
    .option('--local', 'run in this process (deployed runs start with etp scenario start)')
    .option(
      '--input <json>',
      "execution input, a JSON object; the scenario's defaults fill the rest",
      jsonObjectArgument('{"regions":["eu-west-1"]}'),
      {},
    )
    .option('--tenant <tenant>', 'tenant of the run (overrides input.tenant)')
    .option('--run-id <id>', 'execution name and run id [default: local-<time>-<random>]')
    .option(
      '--table <name>',
      'secret-reference table (default: $ETP_SECRET_REFS_TABLE, else the embedded store)',
    )
    .option(
      '--model-endpoint <url>',
      `a Converse-compatible endpoint for agent levels, e.g. etp model serve (default: $${MODEL_ENDPOINT_ENV}, else Bedrock)`,
    )
    .option('--answers <file>', 'answers to ask_user questions: a JSON array of strings (null: no answer)')
    .option(
      '--local-dir <dir>',
      `workspaces and run records of local runs (default: $${LOCAL_DIR_ENV}, else <tmp>/etp-local)`,
    )
    .option(
      '--json',
      'print the output JSON ({ scenario, runId, tenant, input, levels, summary, completion, summaryFile, watermark? }); progress goes to stderr',
    )
    .action(async (name: string, options: RunOptions) => {
      if (!options.local) {
        throw new InvalidArgsError(
          `Only local runs start from here: add --local. A deployed run starts with etp scenario start ${name} --tenant <tenant>.`,
        );
      }
      // Checked before the run starts: a bad id would fail every call of the run instead.
      if (options.runId !== undefined) assertIdentifier(RUN_ID, options.runId, '--run-id');
      const all = scenarios();
      const chosen = findScenario(all, name);
      const input = runInput(chosen, options.input, options.tenant);
      const answers = options.answers
        ? answersFile(options.answers)
        : io.terminal?.input.isTTY
          ? terminalAnswers(io.terminal.input, io.terminal.output)
          : scriptedAnswers([]);
      const runId = options.runId ?? localRunId();
      const table = secretRefsTable(options.table, io.env);
      const { modelEndpoint: endpoint, localDir } = localRunPlaces(options, io.env);
      // The engine's files and the dispatcher's (file tools, claim-checked results) share one local bucket;
      // the tools run in this process read it from their environment as a deployed function reads
      // RUN_BUCKET (the snapshot findings store), so they keep a run's data in the same workspaces.
      const workspaces = workspacesOf(localWorkspaceProvider(localDir));
      process.env[LOCAL_DIR_ENV] = localDir;
      // Progress goes to stderr; stdout carries the result: the run summary, or with --json the output JSON.
      const report = io.err;
      const progress = createRunProgress(chosen, runId, report);
      report(
        `Running ${chosen.name} locally: run ${runId}, tenant ${String(input.tenant)}, secrets from ${table ? `table ${table}` : 'the embedded default store'}, ` +
          // A scenario without an agent level calls no model: the header names none.
          `${chosen.levels.some((level) => level.kind === 'agent') ? `model ${endpoint ? `at ${redactString(endpoint)}` : `Bedrock (${io.env.AWS_REGION ?? process.env.AWS_REGION ?? 'us-east-1'})`}, ` : ''}workspace ${path.join(localDir, 'runs', String(input.tenant), chosen.name, runId)}\n`,
      );
      const started = performance.now();
      const dispatch = createLocalDispatcher({
        references: localSecretReferences(table),
        scenarios: all,
        requireLevel: true,
        workspaceDir: localDir,
      });
      const result = await runScenarioLocally(chosen, {
        input,
        runId,
        scenarios: all,
        dispatch,
        workspaceDir: localDir,
        engine: createLocalEngine({
          scenarios: all,
          workspaces,
          dispatch,
          records: new FileRunRecords(localDir),
          ...(endpoint !== undefined ? { modelEndpoint: endpoint } : {}),
        }),
        answers,
        onEvent: progress.onEvent,
      }).catch((err: unknown) => {
        progress.interrupted(`the execution failed: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      });
      progress.completed(result.output);
      // A local model's tokens are priced at $0 by the engine itself, in this output and summary.json alike.
      const { output } = result;
      io.out(
        options.json
          ? `${JSON.stringify(output, null, 2)}\n`
          : formatSummary(output.summary, performance.now() - started),
      );
      if (result.output.summary.outcome !== 'succeeded') run.exitCode = EXIT_FAILED;
    });

  scenario
    .command('start')
    .description('Start a run of the deployed state machine (StartExecution): execution name = run id')
    .argument('<name>', 'scenario name (etp scenario list)')
    .requiredOption('--tenant <tenant>', 'tenant of the run')
    .option(
      '--input <json>',
      "execution input, a JSON object; the scenario's defaults fill the rest",
      jsonObjectArgument('{"regions":["eu-west-1"]}'),
      {},
    )
    .option('--run-id <id>', 'execution name and run id [default: run-<time>-<random>]')
    .option(
      '--stack <name>',
      'the platform stack: its state machines are named <stack>-<scenario>',
      stackNameArgument,
      DEFAULT_STACK_NAME,
    )
    .option(
      '--state-machine-arn <arn>',
      'the state machine to start (instead of finding it by --stack)',
      stateMachineArnArgument,
    )
    .action(async (name: string, options: StartOptions) => {
      if (options.runId !== undefined) assertIdentifier(RUN_ID, options.runId, '--run-id');
      const chosen = findScenario(scenarios(), name);
      const input = runInput(chosen, options.input, options.tenant);
      const runId = options.runId ?? deployedRunId();
      const stateMachineArn =
        options.stateMachineArn ?? (await stateMachineArnOf(`${options.stack}-${chosen.name}`));
      const sfn = new SFNClient({ requestHandler: awsRequestHandler() });
      try {
        const started = await sfn.send(
          new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify(input) }),
        );
        io.out(
          `Started ${chosen.name} run ${runId} for tenant ${String(input.tenant)}: ${started.executionArn}\n` +
            `Follow it with: aws stepfunctions describe-execution --execution-arn ${started.executionArn}\n`,
        );
      } finally {
        sfn.destroy();
      }
    });
}

/** `arn:<partition>:states:<region>:<account>:stateMachine:<name>` for the caller's account and region. */
async function stateMachineArnOf(stateMachineName: string): Promise<string> {
  const sts = new STSClient({ requestHandler: awsRequestHandler() });
  try {
    const identity = await sts.send(new GetCallerIdentityCommand({}));
    const region = await sts.config.region();
    const partition = identity.Arn?.split(':')[1] ?? 'aws';
    return `arn:${partition}:states:${region}:${identity.Account}:stateMachine:${stateMachineName}`;
  } finally {
    sts.destroy();
  }
}
