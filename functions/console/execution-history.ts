/**
 * A deployed run's live events from its Step Functions execution history
 * (`GetExecutionHistory`, the execution ARN from the scenario's state machine and
 * the run id, which is the execution name): every tool call the dispatcher
 * answered, every model turn the engine took, each question and its answer, each
 * level's start and end, and the summary, as they happen. The workspace files
 * (live.ts, `eventsFromWorkspace`) hold only what outgrew the state; the history
 * holds every Task's input and output. Every event passes `liveEvent()` (redacted,
 * clipped); a question's task token, which the history holds, is never read out.
 *
 * Shapes: the AWS Step Functions API reference, "HistoryEvent" and
 * "GetExecutionHistory" (at most 1,000 events a page, `nextToken`).
 */
import { type HistoryEvent, paginateGetExecutionHistory, type SFNClient } from '@aws-sdk/client-sfn';
import { ASK_USER_LEVEL } from '../engine/definition';
import type { LevelRecord } from '../engine/records';
import { PlatformError } from '../runtime/errors';
import type { ConsoleScenario } from './catalog-view';
import { type LiveEvent, liveEvent, summaryOf, turnStateEvent } from './live';

/** Most history pages read per request: 10 × 1,000 events ("GetExecutionHistory", `maxResults`). */
export const MAX_HISTORY_PAGES = 10;

/**
 * The execution ARN of a run: `arn:…:states:<region>:<account>:execution:<state machine name>:<run id>`
 * (Step Functions developer guide, "Amazon States Language… execution ARN").
 */
export function executionArnOf(stateMachineArn: string, runId: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${runId}`;
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Json = Record<string, unknown> | undefined;

const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The tenant of an execution: its started event's input `tenant`, or undefined. */
export function executionTenant(events: readonly HistoryEvent[]): string | undefined {
  const started = events.find((event) => event.type === 'ExecutionStarted');
  const tenant = asObject(parsed(started?.executionStartedEventDetails?.input))?.tenant;
  return typeof tenant === 'string' ? tenant : undefined;
}

/**
 * The live events of an execution's history, in order.
 *
 * @param scenario - the run's scenario (its level names and kinds).
 * @param events - the history, oldest first.
 */
export function eventsFromHistory(scenario: ConsoleScenario, events: readonly HistoryEvent[]): LiveEvent[] {
  const byId = new Map(events.map((event) => [event.id, event]));
  const levels = new Map(scenario.levels.map((level) => [level.name, level]));
  const closers = new Map(
    scenario.levels.flatMap((level) =>
      [`${level.name}_done`, `${level.name}_done_failed`, `${level.name}_failed`].map((state) => [
        state,
        level.name,
      ]),
    ),
  );
  /** The scheduling event a Lambda or Task outcome answers (its chain of `previousEventId`). */
  const scheduledOf = (event: HistoryEvent): HistoryEvent | undefined => {
    for (let at = byId.get(event.previousEventId); at; at = byId.get(at.previousEventId)) {
      if (at.type === 'LambdaFunctionScheduled' || at.type === 'TaskScheduled') return at;
    }
    return undefined;
  };
  const out: LiveEvent[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'TaskStateEntered':
      case 'PassStateEntered':
      case 'MapStateEntered':
      case 'ChoiceStateEntered': {
        const level = levels.get(event.stateEnteredEventDetails?.name ?? '');
        if (level) out.push({ type: 'level_started', level: level.name, kind: level.kind });
        break;
      }
      case 'LambdaFunctionSucceeded': {
        const input = asObject(parsed(scheduledOf(event)?.lambdaFunctionScheduledEventDetails?.input));
        const output = asObject(parsed(event.lambdaFunctionSucceededEventDetails?.output));
        if (!input || !output) break;
        const level = String(input.level ?? '');
        if (typeof input.tool === 'string' && typeof input.callId === 'string') {
          if (level === ASK_USER_LEVEL) break;
          const error = asObject(output.error);
          out.push({
            type: 'call',
            level,
            callId: String(output.callId ?? input.callId),
            tool: String(output.tool ?? input.tool),
            ok: output.ok === true,
            ...(typeof error?.code === 'string' ? { code: error.code } : {}),
            summary: String(output.summary ?? ''),
            durationMs: Number(output.durationMs ?? 0),
          });
        } else if ((input.action === 'turn' || input.action === 'wrapup') && output.status !== 'done') {
          out.push(
            turnStateEvent(level, { n: Number(output.n ?? 0), conversation: asObject(output.conversation) }),
          );
        }
        break;
      }
      case 'TaskScheduled': {
        const parameters = asObject(parsed(event.taskScheduledEventDetails?.parameters));
        const payload = asObject(parameters?.Payload);
        // Only the level and the question: the payload's taskToken never leaves here.
        if (payload?.action === 'ask') {
          out.push({
            type: 'question',
            level: String(payload.level ?? ''),
            question: String(payload.question ?? ''),
          });
        }
        break;
      }
      case 'TaskSucceeded':
      case 'TaskFailed':
      case 'TaskTimedOut': {
        const payload = asObject(
          asObject(parsed(scheduledOf(event)?.taskScheduledEventDetails?.parameters))?.Payload,
        );
        if (payload?.action === 'ask') {
          out.push({
            type: 'answer',
            level: String(payload.level ?? ''),
            answered: event.type === 'TaskSucceeded',
          });
        }
        break;
      }
      case 'TaskStateExited':
      case 'PassStateExited':
      case 'ChoiceStateExited':
      case 'MapStateExited': {
        const level = closers.get(event.stateExitedEventDetails?.name ?? '');
        const state = asObject(parsed(event.stateExitedEventDetails?.output));
        const record = level
          ? (asObject(asObject(state?.levels)?.[level]) as LevelRecord | undefined)
          : undefined;
        if (level && record) {
          out.push({
            type: 'level_ended',
            level,
            outcome: String(record.outcome ?? ''),
            summary: String(record.summary ?? ''),
          });
        }
        break;
      }
      case 'ExecutionSucceeded': {
        const summary = summaryOf(asObject(parsed(event.executionSucceededEventDetails?.output))?.summary);
        if (summary) out.push({ type: 'summary', summary });
        break;
      }
      case 'ExecutionFailed':
      case 'ExecutionTimedOut':
      case 'ExecutionAborted': {
        const details =
          event.executionFailedEventDetails ??
          event.executionTimedOutEventDetails ??
          event.executionAbortedEventDetails;
        out.push({
          type: 'run_failed',
          message: [event.type, details?.error, details?.cause].filter(Boolean).join(': '),
        });
        break;
      }
      default:
        break;
    }
  }
  return out.map(liveEvent);
}

/** What the history reader is built from. */
export interface ExecutionHistoryOptions {
  /** The scenarios (their levels) of the bundled console catalog. */
  readonly scenarios: readonly ConsoleScenario[];
  /** Each scenario's state machine ARN. */
  readonly stateMachines: Readonly<Record<string, string>>;
  readonly client: SFNClient;
}

/**
 * Reads a run's live events from its execution history, for the events route.
 *
 * @returns undefined when the scenario has no state machine here (the route then reads the workspace).
 * @throws PlatformError `not_found` when the execution does not exist or belongs to another tenant
 *   (the same answer for both: a run id of another tenant is not confirmed).
 */
export function executionHistoryFeed(options: ExecutionHistoryOptions) {
  return async (tenant: string, scenario: string, runId: string): Promise<LiveEvent[] | undefined> => {
    const stateMachineArn = Object.hasOwn(options.stateMachines, scenario)
      ? options.stateMachines[scenario]
      : undefined;
    const view = options.scenarios.find((candidate) => candidate.name === scenario);
    if (!stateMachineArn || !view) return undefined;
    const executionArn = executionArnOf(stateMachineArn, runId);
    const events: HistoryEvent[] = [];
    try {
      let pages = 0;
      for await (const page of paginateGetExecutionHistory(
        { client: options.client, pageSize: 1000 },
        { executionArn, includeExecutionData: true },
      )) {
        events.push(...(page.events ?? []));
        if (++pages >= MAX_HISTORY_PAGES) break;
      }
    } catch (err) {
      if ((err as Error).name === 'ExecutionDoesNotExist') return notFound(tenant, scenario, runId);
      throw err;
    }
    if (executionTenant(events) !== tenant) return notFound(tenant, scenario, runId);
    return eventsFromHistory(view, events);
  };
}

function notFound(tenant: string, scenario: string, runId: string): never {
  throw new PlatformError('not_found', `Tenant ${tenant} has no ${scenario} run ${runId}`);
}
