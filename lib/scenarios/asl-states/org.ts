/**
 * A per-account plan level's states (`for_each_account`; docs/organizations-runs.md):
 *
 * - `L` (the level's first state): the engine's `org_targets` resolves the organization's accounts,
 *   writes them to the run's workspace (`levels/L/accounts.json`) and keeps a
 *   compact plan at `$.org` (counts, the previous organization run, and the items
 *   themselves when there are at most {@link ORG_INLINE_ACCOUNTS_MAX});
 * - `L_accounts_route`: no account → `L_done`; items inline → `L_accounts_inline`
 *   (`ItemsPath`); otherwise `L_accounts` (`ItemReader` from the workspace);
 * - the Distributed Map (`ProcessorConfig` `DISTRIBUTED`, STANDARD children):
 *   `ItemBatcher` (`accounts_per_child` per child, the run's identity and input as
 *   `BatchInput`), `MaxConcurrency` from the concurrency budget
 *   (lib/scenarios/concurrency-budget.ts), `ToleratedFailurePercentage`, and
 *   `ResultWriter` into the workspace (`levels/L/map/`): the accounts' records are
 *   never gathered into the parent's state;
 * - in each child, `L_account_batch` (an inline Map over the batch's accounts) →
 *   `L_account` (the calls' args) → `L_account_calls` (each call to the dispatcher
 *   with the member `account`) → `L_account_done` (the engine's `account_done`: the
 *   results and findings stored per account, a compact account record returned),
 *   or `L_account_failed` when the engine could not record the account;
 * - `L_done`: the engine's `org_done` reads what `ResultWriter` wrote, ranks and
 *   rolls up (functions/engine/org-report.ts), writes the organization report and
 *   keeps a compact record at `$.levels.L`.
 */
import type { PlanLevel } from '../../../functions/engine/definition';
import { MAX_INPUT_BYTES } from '../../../functions/engine/inputs';
import { ACCOUNT_ITEM_MAX_BYTES, ORG_INLINE_ACCOUNTS_MAX } from '../../../functions/engine/limits';
import { ENGINE_PATHS } from '../../../functions/engine/workspaces';
import { accountConcurrency } from '../concurrency-budget';
import { levelCallsParameters, levelTimeoutSeconds } from './plan';
import {
  type AslBuild,
  dispatchMap,
  engineTask,
  runIdentity,
  stateNames,
  WORKSPACE_BUCKET_PLACEHOLDER,
} from './tasks';

/** Largest input of one child execution, in bytes (Step Functions developer guide, "ItemBatcher": `MaxInputBytesPerBatch` at most 256 KiB). */
export const MAX_INPUT_BYTES_PER_BATCH_LIMIT = 256 * 1024;

/** Bytes of a batch's `BatchInput` beside the run's input: the parent's run id and the previous organization run's. */
const BATCH_IDENTITY_BYTES = 1024;

/**
 * A child's `MaxInputBytesPerBatch`: its accounts' items at their bound
 * (`ACCOUNT_ITEM_MAX_BYTES`), the run's input at its bound and the batch's
 * identity — the size lib/scenarios/budget.ts counts for a child — within the
 * service's 256 KiB. An account item past its bound then gets a batch of its own
 * instead of a child over its budget.
 */
export function maxInputBytesPerBatch(accountsPerChild: number): number {
  return Math.min(
    MAX_INPUT_BYTES_PER_BATCH_LIMIT,
    accountsPerChild * ACCOUNT_ITEM_MAX_BYTES + MAX_INPUT_BYTES + BATCH_IDENTITY_BYTES,
  );
}

/** Longest Map Run label (Step Functions developer guide, "Label": at most 40 characters). */
const MAP_RUN_LABEL_MAX = 40;

/**
 * A level's Map Run label: its name, cut to {@link MAP_RUN_LABEL_MAX} characters. The
 * children's execution ARNs hold it (`execution:<stateMachine>/<label>:<id>`), which the
 * state machine's redrive grant names (lib/scenario-state-machine.ts).
 */
export function mapRunLabel(level: string): string {
  return level.slice(0, MAP_RUN_LABEL_MAX);
}

/** The optimized S3 integrations a Distributed Map reads and writes with (Step Functions developer guide, "ItemReader", "ResultWriter"). */
export const S3_GET_OBJECT_RESOURCE = 'arn:aws:states:::s3:getObject';
export const S3_PUT_OBJECT_RESOURCE = 'arn:aws:states:::s3:putObject';

/** A key of the run's workspace as a JSONPath intrinsic: `runs/<tenant>/<scenario>/<runId>/<path>`. */
function workspaceKey(build: AslBuild, path: string): string {
  // Tenant ids, scenario and level names hold no `'`, `{`, `}` or `\` (functions/runtime/ids.ts).
  return `States.Format('runs/{}/${build.scenario.name}/{}/${path}', $.input.tenant, $$.Execution.Name)`;
}

export function orgStates(build: AslBuild, level: PlanLevel, index: number, next: string): void {
  const fanOut = level.for_each_account;
  if (!fanOut) throw new Error(`${build.scenario.name}: level ${level.name} is not a per-account level`);
  const names = stateNames(level.name);
  const budget = accountConcurrency(level, build.lambdaConcurrency, fanOut.accounts_per_child);
  build.states[names.level] = engineTask(
    build,
    {
      action: 'org_targets',
      ...runIdentity(build),
      level: level.name,
      'input.$': '$.input',
      // What the run has spent so far, for the run budget's account gate.
      'levels.$': '$.levels',
    },
    '$.org',
    { Next: names.accountsRoute },
    { catchTo: names.done, catchPath: '$.org' },
  );
  build.states[names.accountsRoute] = {
    Type: 'Choice',
    Comment: `Up to ${ORG_INLINE_ACCOUNTS_MAX} accounts travel in the state; more are read from the workspace`,
    Choices: [
      { Variable: '$.org.accounts', NumericEquals: 0, Next: names.done },
      { Variable: '$.org.items', IsPresent: true, Next: names.accountsInline },
    ],
    Default: names.accounts,
  };
  // State names are unique across the whole state machine, Map processors included
  // (ASL: "state names must be unique within the scope of the whole state machine"):
  // each Distributed Map's children have their own names.
  const distributed = (items: Record<string, unknown>, children: ChildStateNames) => ({
    Type: 'Map',
    Comment: `${level.name} per member account: ${budget.maxConcurrency} children at once (${budget.functionsPerAccount} functions per account, ${build.lambdaConcurrency} in the budget)`,
    ...items,
    ItemBatcher: {
      MaxItemsPerBatch: fanOut.accounts_per_child,
      MaxInputBytesPerBatch: maxInputBytesPerBatch(fanOut.accounts_per_child),
      BatchInput: {
        'runId.$': '$$.Execution.Name',
        'input.$': '$.input',
        'previousRunId.$': '$.org.previousRunId',
      },
    },
    MaxConcurrency: budget.maxConcurrency,
    ToleratedFailurePercentage: fanOut.tolerated_failure_percentage,
    Label: mapRunLabel(level.name),
    ItemProcessor: {
      ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
      StartAt: children.accountBatch,
      States: childStates(build, level, index, fanOut.accounts_per_child, children),
    },
    ResultWriter: {
      Resource: S3_PUT_OBJECT_RESOURCE,
      Parameters: {
        Bucket: WORKSPACE_BUCKET_PLACEHOLDER,
        'Prefix.$': workspaceKey(build, ENGINE_PATHS.mapResults(level.name)),
      },
    },
    ResultPath: '$.org.map',
    // Past the tolerated failures (or a Map Run that could not start), the accounts done are still reported.
    Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.org.mapError', Next: names.done }],
    Next: names.done,
  });
  build.states[names.accounts] = distributed(
    {
      ItemReader: {
        Resource: S3_GET_OBJECT_RESOURCE,
        ReaderConfig: { InputType: 'JSON' },
        Parameters: {
          Bucket: WORKSPACE_BUCKET_PLACEHOLDER,
          'Key.$': workspaceKey(build, ENGINE_PATHS.accountItems(level.name)),
        },
      },
    },
    childStateNames(level.name, 'reader'),
  );
  build.states[names.accountsInline] = distributed(
    { ItemsPath: '$.org.items' },
    childStateNames(level.name, 'inline'),
  );
  build.states[names.done] = engineTask(
    build,
    {
      action: 'org_done',
      ...runIdentity(build),
      level: level.name,
      'input.$': '$.input',
      'levels.$': '$.levels',
      'org.$': '$.org',
    },
    '$',
    { Next: next },
  );
}

/** The names of one Distributed Map's child states. */
type ChildStateNames = ReturnType<typeof childStateNames>;

/**
 * The child states' names of a level's Distributed Map: `L_account_batch`,
 * `L_account`, `L_account_calls`, `L_account_call`, `L_account_done`,
 * `L_account_failed` under the `ItemReader` Map (`L_accounts`); the same with
 * `L_inline_` under the inline-items one (`L_accounts_inline`).
 */
export function childStateNames(level: string, map: 'reader' | 'inline') {
  const names = stateNames(map === 'reader' ? level : `${level}_inline`);
  return {
    accountBatch: names.accountBatch,
    account: names.account,
    accountCalls: names.accountCalls,
    accountCall: names.accountCall,
    accountDone: names.accountDone,
    accountFailed: names.accountFailed,
  };
}

/** The states of one child execution: its batch of accounts side by side, each account's calls, its record. */
function childStates(
  build: AslBuild,
  level: PlanLevel,
  index: number,
  accountsPerChild: number,
  names: ChildStateNames,
): Record<string, Record<string, unknown>> {
  const timeoutSeconds = levelTimeoutSeconds(level);
  const account: Record<string, Record<string, unknown>> = {
    [names.account]: {
      Type: 'Pass',
      Comment: `${level.name} in one account: ${level.calls.map((call) => call.tool).join(', ')}`,
      Parameters: levelCallsParameters(build, level, index),
      ResultPath: '$.pending',
      Next: names.accountCalls,
    },
    [names.accountCalls]: dispatchMap(build, level.name, '$.pending.calls', names.accountCall, {
      concurrency: level.concurrency,
      timeoutSeconds,
      resultPath: '$.pending',
      next: names.accountDone,
      identity: { runId: '$.runId', account: '$.account.accountId' },
      callback: true,
    }),
    [names.accountDone]: {
      ...engineTask(
        build,
        {
          action: 'account_done',
          scenario: build.scenario.name,
          'tenant.$': '$.input.tenant',
          'runId.$': '$.runId',
          level: level.name,
          'account.$': '$.account',
          'previousRunId.$': '$.previousRunId',
          'results.$': '$.pending',
        },
        '$',
        { End: true },
        { catchTo: names.accountFailed, catchPath: '$.lastError' },
      ),
    },
    [names.accountFailed]: {
      Type: 'Pass',
      Comment: 'The engine could not record the account: it is reported failed, with the error.',
      Parameters: {
        'accountId.$': '$.account.accountId',
        'name.$': '$.account.name',
        status: 'failed',
        'reason.$': "States.Format('its results could not be recorded ({})', $.lastError.Error)",
      },
      End: true,
    },
  };
  return {
    [names.accountBatch]: {
      Type: 'Map',
      ItemsPath: '$.Items',
      MaxConcurrency: accountsPerChild,
      ItemSelector: {
        'account.$': '$$.Map.Item.Value',
        'runId.$': '$.BatchInput.runId',
        'input.$': '$.BatchInput.input',
        'previousRunId.$': '$.BatchInput.previousRunId',
      },
      ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: names.account, States: account },
      End: true,
    },
  };
}
