import type { Command } from 'commander';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { assertIdentifier, RUN_ID, TENANT_ID } from '../../functions/runtime/ids';
import { MAX_ARGS_DEPTH, tooDeepAt } from '../../functions/runtime/schema-violations';
import { toolCatalog } from '../../functions/tools/catalog';
import { findScenario, loadScenarios } from '../../lib/scenarios/loader';
import type { Scenario } from '../../lib/scenarios/model';
import {
  createLocalDispatcher,
  localRunId,
  localSecretReferences,
  runScenarioLocally,
} from '../local/local-run';
import type { CliRun } from './io';
import { jsonObjectArgument, secretRefsTable } from './options';
import { createRunProgress } from './progress';
import { formatTable } from './text';

interface RunOptions {
  readonly local?: boolean;
  readonly input: Record<string, unknown>;
  readonly tenant?: string;
  readonly runId?: string;
  readonly table?: string;
  readonly json?: boolean;
}

/**
 * `etp scenario list|run`: the scenario definitions, and a local run of one:
 * the state machine definition Step Functions runs, executed in this process.
 */
export function registerScenarioCommands(program: Command, run: CliRun): void {
  const { io } = run;
  const scenario = program.command('scenario').description('List scenarios and run them locally');

  scenario
    .command('list')
    .description('List the scenarios: levels, inputs (with defaults) and description')
    .action(() => {
      const scenarios = loadScenarios(toolCatalog);
      io.out(
        formatTable(
          ['name', 'levels', 'inputs', 'description'],
          scenarios.map((s) => [
            s.name,
            s.levels.map((level) => level.name).join(' -> '),
            Object.entries(s.inputs)
              .map(([name, input]) =>
                input.default === undefined ? name : `${name}=${JSON.stringify(input.default)}`,
              )
              .join(', '),
            s.description,
          ]),
        ),
      );
    });

  scenario
    .command('run')
    .description('Run a scenario: --local executes its state machine definition in this process')
    .argument('<name>', 'scenario name (etp scenario list)')
    .option('--local', 'run in this process (deployed runs start with aws stepfunctions start-execution)')
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
    .option('--json', 'print the output JSON ({ scenario, input, results }); progress goes to stderr')
    .action(async (name: string, options: RunOptions) => {
      if (!options.local) {
        throw new InvalidArgsError(
          `Only local runs start from here: add --local. A deployed run starts with aws stepfunctions start-execution on the ${name} state machine (see docs/deploying.md).`,
        );
      }
      // Checked before the run starts: a bad id would fail every call of the run instead.
      if (options.runId !== undefined) assertIdentifier(RUN_ID, options.runId, '--run-id');
      if (options.tenant !== undefined) assertIdentifier(TENANT_ID, options.tenant, '--tenant');
      const scenarios = loadScenarios(toolCatalog);
      const chosen = findScenario(scenarios, name);
      const input = { ...options.input, ...(options.tenant !== undefined ? { tenant: options.tenant } : {}) };
      const tenant = checkInput(chosen, input);
      const runId = options.runId ?? localRunId();
      const table = secretRefsTable(options.table, io.env);
      // With --json, stdout carries only the output JSON; people still see progress on stderr.
      const report = options.json ? io.err : io.out;
      const progress = createRunProgress(chosen, runId, report);
      report(
        `Running ${chosen.name} locally: run ${runId}, tenant ${tenant}, secrets from ${table ? `table ${table}` : 'the embedded default store'}\n`,
      );
      const started = performance.now();
      const output = await runScenarioLocally(chosen, {
        input,
        runId,
        dispatch: createLocalDispatcher({
          references: localSecretReferences(table),
          scenarios,
          requireLevel: true,
        }),
        onCallStart: progress.callStarted,
        onCallEnd: progress.callEnded,
      }).catch((err: unknown) => {
        progress.interrupted('the execution failed');
        throw err;
      });
      progress.completed(output, performance.now() - started);
      if (options.json) io.out(`${JSON.stringify(output, null, 2)}\n`);
    });
}

/**
 * Checks the execution input against the scenario's declared inputs.
 *
 * @returns the run's tenant (the input's, else the scenario's default).
 * @throws InvalidArgsError (usage error) for keys the scenario does not declare,
 *   an input nested deeper than tool args may be (`MAX_ARGS_DEPTH`), or a tenant
 *   that is missing (and not defaulted) or not a tenant id.
 */
function checkInput(scenario: Scenario, input: Record<string, unknown>): string {
  if (tooDeepAt(input, MAX_ARGS_DEPTH) !== undefined) {
    throw new InvalidArgsError(`--input nests objects and arrays deeper than ${MAX_ARGS_DEPTH} levels`);
  }
  // Every run has a tenant (the Task states read $.input.tenant), declared or not.
  const declared = [...new Set(['tenant', ...Object.keys(scenario.inputs)])];
  const unknown = Object.keys(input).filter((key) => !declared.includes(key));
  if (unknown.length > 0) {
    throw new InvalidArgsError(
      `--input has keys ${scenario.name} does not declare: ${unknown.join(', ')}. Declared inputs: ${declared.join(', ')}`,
    );
  }
  if (input.tenant !== undefined) {
    assertIdentifier(TENANT_ID, input.tenant, 'input.tenant');
    return input.tenant;
  }
  const fallback = scenario.inputs.tenant?.default;
  if (fallback === undefined) {
    throw new InvalidArgsError(
      `${scenario.name} needs a tenant: pass --tenant <tenant> or "tenant" in --input (${TENANT_ID.accepted})`,
    );
  }
  assertIdentifier(TENANT_ID, fallback, `The default tenant of ${scenario.name}`);
  return fallback;
}
