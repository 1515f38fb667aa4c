/**
 * What every engine action works with: the engine's dependencies, the clock,
 * and the lookups of a scenario and a level by name (own properties only).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { AccountPlan, AccountSelection } from '../runtime/aws/organization';
import type { ToolCatalog } from '../runtime/catalog';
import { UnknownLevelError, UnknownScenarioError } from '../runtime/errors';
import type { Workspace } from '../runtime/workspace';
import type { EngineConfig } from './config';
import type { AgentLevel, PlanLevel, ScenarioDefinition } from './definition';
import type { ModelClient } from './model-client';
import type { RunRecords } from './run-records';
import type { RunKey, WorkspaceFactory } from './workspaces';

/**
 * Lists the accounts a per-account level (`listing.level`, of `run.scenario`) audits: AWS
 * Organizations read at the tenant's management (or delegated-administrator) account
 * (functions/runtime/aws/organization.ts, `resolveAccounts`). Deployed and in local
 * runs, through the dispatcher's `aws_org_accounts` (account-directory.ts). Suspended,
 * closed and excluded accounts come back in `notAudited`.
 */
export type AccountDirectory = (
  run: RunKey,
  selection: AccountSelection,
  listing: AccountListing,
) => Promise<AccountPlan>;

/** Which level lists its accounts, and the id of that listing call (`listingCallId`, account-directory.ts). */
export interface AccountListing {
  readonly level: string;
  readonly callId: string;
}

/** What the engine is built from. */
export interface EngineDependencies {
  readonly config: EngineConfig;
  /** The tool catalog: the specs offered to models (the calls themselves go through the dispatcher). */
  readonly catalog: ToolCatalog;
  readonly workspaces: WorkspaceFactory;
  readonly records: RunRecords;
  readonly model: ModelClient;
  /**
   * Where `model` answers from when it is not Bedrock (a scripted model, a local
   * Converse-compatible server, e.g. `http://127.0.0.1:8080`): the run summary
   * prices its tokens at 0 USD and says so (local-model-cost.ts). Absent: tokens
   * are priced as Bedrock bills the level's model id. @default - Bedrock
   */
  readonly localModelEndpoint?: string;
  readonly logger: Logger;
  /**
   * Lists the tenant's organization accounts for per-account levels (actions/org-targets.ts).
   * @default - none: a per-account level fails its listing and says so
   */
  readonly accounts?: AccountDirectory;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** The dependencies with the clock set, and the scenario and level lookups. */
export interface EngineContext extends EngineDependencies {
  readonly now: () => Date;
  /** @throws UnknownScenarioError listing the known scenarios. */
  scenarioOf(name: string): ScenarioDefinition;
  /** @throws UnknownLevelError listing the scenario's levels of that kind. */
  levelOf<K extends 'plan' | 'agent'>(
    scenario: ScenarioDefinition,
    name: string,
    kind: K,
  ): K extends 'plan' ? PlanLevel : AgentLevel;
}

/** The context of an engine built from `deps`. */
export function engineContext(deps: EngineDependencies): EngineContext {
  return {
    ...deps,
    now: deps.now ?? (() => new Date()),
    scenarioOf(name) {
      const scenario = Object.hasOwn(deps.config.scenarios, name) ? deps.config.scenarios[name] : undefined;
      if (!scenario) throw new UnknownScenarioError(name, Object.keys(deps.config.scenarios));
      return scenario;
    },
    levelOf<K extends 'plan' | 'agent'>(scenario: ScenarioDefinition, name: string, kind: K) {
      const level = scenario.levels.find((candidate) => candidate.name === name);
      if (!level || level.kind !== kind) {
        throw new UnknownLevelError(
          scenario.name,
          name,
          scenario.levels.filter((l) => l.kind === kind).map((l) => l.name),
        );
      }
      return level as K extends 'plan' ? PlanLevel : AgentLevel;
    },
  };
}

/** A level an action works on: its scenario, its definition, the run's key and the run's workspace. */
export interface OpenLevel<K extends 'plan' | 'agent'> {
  readonly scenario: ScenarioDefinition;
  readonly level: K extends 'plan' ? PlanLevel : AgentLevel;
  readonly run: RunKey;
  readonly workspace: Workspace;
}

/**
 * Opens the level an action `event` names (the opening of every per-level action).
 * @throws UnknownScenarioError / UnknownLevelError as {@link EngineContext.scenarioOf} and `levelOf`.
 */
export function openLevel<K extends 'plan' | 'agent'>(
  ctx: EngineContext,
  event: {
    readonly tenant: string;
    readonly scenario: string;
    readonly level: string;
    readonly runId: string;
  },
  kind: K,
): OpenLevel<K> {
  const scenario = ctx.scenarioOf(event.scenario);
  const level = ctx.levelOf(scenario, event.level, kind);
  const run: RunKey = { tenant: event.tenant, scenario: scenario.name, runId: event.runId };
  return { scenario, level, run, workspace: ctx.workspaces(run) };
}
