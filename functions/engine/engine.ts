import type { Logger } from '@aws-lambda-powertools/logger';
import { shrinkToFit } from '../runtime/bound';
import type { ToolCatalog } from '../runtime/catalog';
import { InvalidArgsError, PlatformError, UnknownLevelError, UnknownScenarioError } from '../runtime/errors';
import { failureResult, type ToolErrorInfo, type ToolResult } from '../runtime/result';
import { toJsonSchema } from '../runtime/spec';
import type { Workspace } from '../runtime/workspace';
import type { EngineConfig } from './config';
import {
  type ConversationRef,
  engineResultBlock,
  loadConversation,
  type StoredConversation,
  saveConversation,
  textOf,
  toolResultBlock,
  toolUsesOf,
} from './conversation';
import {
  type AgentLevel,
  ASK_USER_LEVEL,
  ASK_USER_TOOL,
  type PlanLevel,
  type ScenarioDefinition,
} from './definition';
import {
  type Answer,
  type EngineEvent,
  engineEventSchema,
  type PendingCall,
  type RejectedCall,
  type TurnState,
  turnStateSchema,
} from './events';
import {
  diffFindings,
  type FindingsFile,
  findingsCounts,
  findingsIn,
  rankTracked,
  type ToolCoverage,
  type TrackedFinding,
} from './findings';
import { resolveInput } from './inputs';
import {
  FINISH_DATA_INLINE_MAX_BYTES,
  MAX_AGENT_CALL_RECORDS,
  MAX_LEVEL_SUMMARY_CHARS,
  MAX_QUESTIONS_PER_LEVEL,
  MAX_TOOL_CALLS_PER_TURN,
} from './limits';
import {
  type ContentBlock,
  type ModelClient,
  ModelRetryableError,
  type ModelTool,
  modelRetryableCause,
  normalizeModelError,
} from './model-client';
import { agentEndInWords, fallbackReport, plainReason } from './plain-words';
import { renderPrompt } from './prompt';
import {
  type AgentLevelRecord,
  type AgentOutcome,
  asResultRef,
  type CallRecord,
  callRecordOf,
  type FindingsCounts,
  type LevelRecord,
  type ModelUsage,
  NO_USAGE,
  type PlanLevelRecord,
  planOutcome,
  type RunState,
} from './records';
import { type RunCompletion, runCompletion } from './run-completion';
import type { RunRecords } from './run-records';
import { type RunSummary, summarizeRun } from './summary';
import { ENGINE_PATHS, type RunKey, readJson, refPath, type WorkspaceFactory, writeJson } from './workspaces';

/** What the engine is built from. */
export interface EngineDependencies {
  readonly config: EngineConfig;
  /** The tool catalog: the specs offered to models (the calls themselves go through the dispatcher). */
  readonly catalog: ToolCatalog;
  readonly workspaces: WorkspaceFactory;
  readonly records: RunRecords;
  readonly model: ModelClient;
  readonly logger: Logger;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** The engine's output for the `summary` action: the execution's output. */
export interface RunOutput extends RunState {
  readonly scenario: string;
  readonly runId: string;
  readonly tenant: string;
  readonly summary: RunSummary;
  /** What the `Run Completed` event publishes (lib/scenarios/run-events.ts). */
  readonly completion: RunCompletion;
}

/** Handles one engine event; `signal` aborts a model call when the invocation runs out of time. */
export type Engine = (event: unknown, signal?: AbortSignal) => Promise<unknown>;

/** The most characters of a question `ask_user` accepts. */
export const MAX_QUESTION_CHARS = 1000;

function narrowResult(raw: unknown, fallback: { tool: string; callId: string }): ToolResult {
  const result = raw as Partial<ToolResult> | null;
  const valid =
    result !== null &&
    typeof result === 'object' &&
    typeof result.tool === 'string' &&
    typeof result.callId === 'string' &&
    typeof result.summary === 'string' &&
    (result.ok === true || (result.ok === false && typeof result.error?.code === 'string'));
  if (valid) return result as ToolResult;
  return failureResult(
    fallback.tool,
    fallback.callId,
    { code: 'internal_error', message: 'The call returned no result', retryable: false },
    0,
  );
}

function sumUsage(usage: ModelUsage, add: Partial<ModelUsage>): ModelUsage {
  const out = { ...usage } as Record<keyof ModelUsage, number>;
  for (const [key, value] of Object.entries(add)) out[key as keyof ModelUsage] += value ?? 0;
  return out;
}

function cutSummary(text: string): string {
  return text.length > MAX_LEVEL_SUMMARY_CHARS ? `${text.slice(0, MAX_LEVEL_SUMMARY_CHARS - 1)}…` : text;
}

/** A tool spec as a Converse toolSpec (`$schema` dropped: models want the schema itself). */
function modelToolOf(catalog: ToolCatalog, name: string): ModelTool {
  const spec = catalog.get(name);
  const { $schema: _schema, ...inputSchema } = toJsonSchema(spec.inputSchema);
  return { name: spec.name, description: spec.description, inputSchema };
}

function askUserTool(timeoutSeconds: number): ModelTool {
  const hours = Math.round((timeoutSeconds / 3600) * 10) / 10;
  return {
    name: ASK_USER_TOOL,
    description:
      `Asks a person one question and waits for the answer (up to ${hours} hours; the run pauses meanwhile). ` +
      'Use it only when you cannot go on without a decision or a fact only a person has. ' +
      'If nobody answers in time you get "no answer" and go on without it.',
    inputSchema: {
      type: 'object',
      properties: {
        question: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_QUESTION_CHARS,
          description: 'The question, self-contained: the person sees only this text.',
        },
      },
      required: ['question'],
      additionalProperties: false,
    },
  };
}

function systemPrompt(scenario: ScenarioDefinition, level: AgentLevel, tenant: string): string {
  return [
    `You are the "${level.name}" step of the "${scenario.name}" scenario (${scenario.description}), run by the External Tools Platform for tenant "${tenant}".`,
    'Use only the tools offered. A tool result with "ok": false carries an error code and a message saying what was wrong and what is accepted: correct your call or work around it. Never invent data.',
    'Large results are shortened; where a result says where its full value is, read it with read_file if that tool is offered.',
    `When you are done, call finish with your final answer in "summary" (at most ${MAX_LEVEL_SUMMARY_CHARS} characters, written for people) and optional structured "data". You have at most ${level.max_turns} turns; one turn may call up to ${MAX_TOOL_CALLS_PER_TURN} tools at once.`,
    ...(level.ask_user
      ? ['If you cannot go on without a person, call ask_user with one self-contained question.']
      : []),
  ].join('\n');
}

/**
 * The scenario engine: the bookkeeping Task states of a run (input check,
 * plan-level records and findings, the agent loop's Converse turns, questions,
 * the run summary). Every tool call still goes through the dispatcher, from the
 * state machine's Map states; the engine only reads results.
 *
 * @example
 * const engine = createEngine({ config, catalog: toolCatalog, workspaces, records, model, logger });
 * const state = await engine({ action: 'start', scenario: 'aws_pulse', runId: 'r1', input: { regions: ['eu-west-1'] } });
 */
export function createEngine(deps: EngineDependencies): Engine {
  const now = deps.now ?? (() => new Date());

  const scenarioOf = (name: string): ScenarioDefinition => {
    const scenario = Object.hasOwn(deps.config.scenarios, name) ? deps.config.scenarios[name] : undefined;
    if (!scenario) throw new UnknownScenarioError(name, Object.keys(deps.config.scenarios));
    return scenario;
  };
  const levelOf = <K extends 'plan' | 'agent'>(scenario: ScenarioDefinition, name: string, kind: K) => {
    const level = scenario.levels.find((candidate) => candidate.name === name);
    if (!level || level.kind !== kind) {
      throw new UnknownLevelError(
        scenario.name,
        name,
        scenario.levels.filter((l) => l.kind === kind).map((l) => l.name),
      );
    }
    return level as K extends 'plan' ? PlanLevel : AgentLevel;
  };

  async function planDone(event: Extract<EngineEvent, { action: 'plan_done' }>): Promise<RunState> {
    const started = performance.now();
    const scenario = scenarioOf(event.scenario);
    const level = levelOf(scenario, event.level, 'plan');
    const run: RunKey = { tenant: event.tenant, scenario: scenario.name, runId: event.runId };
    const workspace = deps.workspaces(run);
    const results = level.calls.map((call, index) =>
      narrowResult(event.results[index], { tool: call.tool, callId: `${level.name}/${index}` }),
    );
    await Promise.all(
      results.map((result, index) =>
        writeJson(workspace, ENGINE_PATHS.callResult(level.name, index, result.tool), result),
      ),
    );
    const calls = results.map(callRecordOf);
    const findings = level.track_findings
      ? await trackFindings(run, level.name, workspace, results)
      : undefined;
    const record: PlanLevelRecord = {
      kind: 'plan',
      ...planOutcome(calls),
      calls,
      ...(findings ? { findings } : {}),
      engineMs: Math.round(performance.now() - started),
    };
    deps.logger.info('plan level done', { ...run, scenarioLevel: level.name, outcome: record.outcome });
    return {
      input: event.input,
      levels: { ...(event.levels as Record<string, LevelRecord>), [level.name]: record },
    };
  }

  async function fullValue(workspace: Workspace, result: ToolResult & { ok: true }): Promise<unknown> {
    const ref = asResultRef(result.resultRef);
    const path = ref && refPath(workspace, ref);
    if (!path) return result.value;
    try {
      return await readJson<unknown>(workspace, path);
    } catch {
      return result.value;
    }
  }

  async function trackFindings(
    run: RunKey,
    level: string,
    workspace: Workspace,
    results: readonly ToolResult[],
  ): Promise<FindingsCounts> {
    const coverage: Record<string, ToolCoverage> = {};
    const found: TrackedFinding[] = [];
    for (const result of results) {
      if (!result.ok) {
        coverage[result.tool] = { ok: false, complete: false };
        continue;
      }
      const full = await fullValue(workspace, result);
      // A value claim-checked in full counts as complete; a shrunk inline one does not.
      // The stored JSON may be the value or the whole result: the walk finds findings in either.
      const { findings, complete } = findingsIn(full);
      const whole = complete && (!result.truncated || full !== result.value);
      coverage[result.tool] = { ok: true, complete: whole };
      found.push(...findings.map((finding) => ({ ...finding, tool: result.tool })));
    }
    const unique = [...new Map(found.map((finding) => [finding.id, finding])).values()];
    const path = ENGINE_PATHS.findings(level);
    // A run that read nothing does not replace the tenant's reference point.
    const anyOk = Object.values(coverage).some((tool) => tool.ok);
    const previousPointer = await deps.records.swapLatestFindings(
      run.tenant,
      run.scenario,
      level,
      { runId: run.runId, path },
      { readOnly: !anyOk },
    );
    let previous: FindingsFile | undefined;
    if (previousPointer) {
      try {
        previous = await readJson<FindingsFile>(
          deps.workspaces({ ...run, runId: previousPointer.runId }),
          previousPointer.path,
        );
      } catch (err) {
        deps.logger.warn('previous findings unreadable', {
          ...run,
          previousRunId: previousPointer.runId,
          err,
        });
      }
    }
    const file: FindingsFile = {
      runId: run.runId,
      level,
      findings: rankTracked(unique),
      coverage,
      diff: diffFindings(unique, coverage, previous),
    };
    await writeJson(workspace, path, file);
    return findingsCounts(file);
  }

  /** The toolResult blocks answering the previous turn's toolUses, and the calls' records. */
  function answersOfTurn(
    state: TurnState,
    conversation: StoredConversation,
    workspace: Workspace,
  ): { blocks: ContentBlock[]; records: CallRecord[]; finish?: Record<string, unknown> } {
    const byToolUse = new Map<string, ContentBlock>();
    const records: CallRecord[] = [];
    let finish: Record<string, unknown> | undefined;
    state.calls.forEach((call: PendingCall, index: number) => {
      const result = narrowResult(state.results[index], call);
      records.push(callRecordOf(result));
      byToolUse.set(call.toolUseId, toolResultBlock(call.toolUseId, result, workspace));
      if (call.tool === 'finish' && result.ok && !finish) finish = result.value as Record<string, unknown>;
    });
    for (const rejected of state.rejected as RejectedCall[]) {
      records.push({
        callId: `${state.level}/-`,
        tool: rejected.tool,
        ok: false,
        code: rejected.code as CallRecord['code'],
        summary: `${rejected.code}: ${rejected.message}`,
        durationMs: 0,
        rejected: true,
      });
      byToolUse.set(
        rejected.toolUseId,
        engineResultBlock(
          rejected.toolUseId,
          { ok: false, error: { code: rejected.code, message: rejected.message, retryable: true } },
          true,
        ),
      );
    }
    if (state.askToolUseId) {
      const answer = state.answer as Answer | null | undefined;
      byToolUse.set(
        state.askToolUseId,
        engineResultBlock(
          state.askToolUseId,
          answer?.answered && answer.text !== undefined
            ? { answered: true, answer: answer.text, ...(answer.by ? { by: answer.by } : {}) }
            : {
                answered: false,
                answer: 'no answer',
                reason:
                  answer?.reason === 'timeout'
                    ? 'Nobody answered in time: go on without the answer.'
                    : 'The question could not be asked: go on without the answer.',
              },
          false,
        ),
      );
    }
    // In the order of the assistant's toolUse blocks, as Converse expects them.
    const last = conversation.messages[conversation.messages.length - 1];
    const blocks = toolUsesOf(last)
      .map((use) => byToolUse.get(use.toolUseId))
      .filter((block): block is ContentBlock => block !== undefined);
    return { blocks, records, ...(finish ? { finish } : {}) };
  }

  async function turn(
    event: Extract<EngineEvent, { action: 'turn' }>,
    signal?: AbortSignal,
  ): Promise<TurnState> {
    const started = performance.now();
    const scenario = scenarioOf(event.scenario);
    const level = levelOf(scenario, event.level, 'agent');
    const run: RunKey = { tenant: event.tenant, scenario: scenario.name, runId: event.runId };
    const workspace = deps.workspaces(run);
    const levels = event.levels as Record<string, LevelRecord>;
    const parsed = turnStateSchema.safeParse(event.turn);
    if (!parsed.success)
      throw new PlatformError('internal_error', `Malformed turn state: ${parsed.error.message}`);
    const fresh = parsed.data.status === 'start' || parsed.data.level !== level.name;
    const state = parsed.data;
    let n = fresh ? 0 : state.n;
    let usage: ModelUsage = fresh ? NO_USAGE : { ...NO_USAGE, ...(state.usage as Partial<ModelUsage>) };
    const records: CallRecord[] = fresh ? [] : [...(state.records as unknown as CallRecord[])];
    let callCount = fresh ? 0 : state.callCount;
    let conversation: StoredConversation;

    const finishLevel = async (
      outcome: AgentOutcome,
      details: { finish?: Record<string, unknown>; text?: string; error?: ToolErrorInfo } = {},
    ): Promise<TurnState> => {
      const summary =
        typeof details.finish?.summary === 'string'
          ? details.finish.summary
          : outcome === 'stopped' && details.text
            ? details.text
            : fallbackReport(
                scenario,
                levels,
                agentEndInWords(
                  outcome,
                  level.max_turns,
                  details.error ? plainReason(details.error.code) : undefined,
                ),
              );
      const data = (details.finish?.data ?? {}) as Record<string, unknown>;
      if (details.finish) await writeJson(workspace, ENGINE_PATHS.finish(level.name), details.finish);
      const ref = await saveConversation(workspace, level.name, n, conversation, true);
      usage = sumUsage(usage, { engineInvocations: 1, engineMs: Math.round(performance.now() - started) });
      const record: AgentLevelRecord = {
        kind: 'agent',
        outcome,
        summary: cutSummary(summary),
        data: shrinkToFit(data, FINISH_DATA_INLINE_MAX_BYTES).value as Record<string, unknown>,
        model: level.model,
        turns: n,
        callCount,
        calls: records.slice(0, MAX_AGENT_CALL_RECORDS),
        usage,
        ...(details.error ? { error: details.error } : {}),
      };
      deps.logger.info('agent level done', { ...run, scenarioLevel: level.name, outcome, turns: n });
      return {
        level: level.name,
        n,
        status: 'done',
        calls: [],
        results: [],
        rejected: [],
        conversation: ref as TurnState['conversation'],
        callCount,
        records: [],
        usage: usage as unknown as Record<string, unknown>,
        record: record as unknown as Record<string, unknown>,
      };
    };

    if (fresh) {
      const prompt = await renderPrompt(level.prompt, {
        input: event.input,
        levels,
        run: { id: run.runId, tenant: run.tenant, scenario: run.scenario },
        workspace,
      });
      conversation = {
        system: systemPrompt(scenario, level, run.tenant),
        messages: [{ role: 'user', content: [{ text: prompt }] }],
      };
    } else {
      conversation = await loadConversation(workspace, state.conversation);
      const answered = answersOfTurn(state, conversation, workspace);
      records.push(...answered.records);
      if (answered.blocks.length > 0) conversation.messages.push({ role: 'user', content: answered.blocks });
      if (state.status === 'ask' && state.askToolUseId) {
        const answer = state.answer as Answer | null | undefined;
        // The no-answer Pass the state machine went through: one more transition.
        if (!answer?.answered) usage = sumUsage(usage, { unanswered: 1 });
        await deps.records.closeQuestion(
          run.tenant,
          run.runId,
          level.name,
          state.n,
          answer?.answered ? 'answered' : answer?.reason === 'timeout' ? 'timed_out' : 'failed',
        );
      }
      if (answered.finish) return finishLevel('finished', { finish: answered.finish });
    }
    if (n >= level.max_turns) return finishLevel('max_turns');

    const tools = [
      ...level.intra_tools,
      ...deps.catalog.fileToolNames().filter((name) => !level.intra_tools.includes(name)),
    ].map((name) => modelToolOf(deps.catalog, name));
    if (level.ask_user) tools.push(askUserTool(level.ask_user.timeout_seconds));
    let response: Awaited<ReturnType<ModelClient['converse']>>;
    try {
      response = await deps.model.converse(
        {
          modelId: level.model,
          system: conversation.system,
          messages: conversation.messages,
          tools,
          maxTokens: level.max_tokens,
          ...(level.temperature !== undefined ? { temperature: level.temperature } : {}),
        },
        signal,
      );
    } catch (err) {
      const error = normalizeModelError(err, level.model);
      deps.logger.warn('model call failed', { ...run, scenarioLevel: level.name, turn: n + 1, error });
      if (error.retryable) {
        throw new ModelRetryableError(error);
      }
      return finishLevel('model_error', { error });
    }
    n += 1;
    usage = sumUsage(usage, {
      inputTokens: response.inputTokens,
      outputTokens: response.outputTokens,
      modelCalls: 1,
      modelMs: response.latencyMs,
    });
    conversation.messages.push(response.message);
    const uses = toolUsesOf(response.message);
    if (uses.length === 0) return finishLevel('stopped', { text: textOf(response.message) });

    const calls: PendingCall[] = [];
    const rejected: RejectedCall[] = [];
    let question: { text: string; toolUseId: string } | undefined;
    for (const use of uses) {
      if (level.ask_user && use.name === ASK_USER_TOOL) {
        const text = (use.input as { question?: unknown } | null)?.question;
        const problem =
          typeof text !== 'string' || text.trim() === '' || text.length > MAX_QUESTION_CHARS
            ? `question: expected a string of 1-${MAX_QUESTION_CHARS} characters`
            : question
              ? 'ask one question per turn: this one was not asked'
              : usage.askTurns >= MAX_QUESTIONS_PER_LEVEL
                ? `at most ${MAX_QUESTIONS_PER_LEVEL} questions per level: go on without asking`
                : undefined;
        if (problem) {
          rejected.push({ toolUseId: use.toolUseId, tool: use.name, code: 'invalid_args', message: problem });
        } else question = { text: text as string, toolUseId: use.toolUseId };
        continue;
      }
      if (calls.length >= MAX_TOOL_CALLS_PER_TURN) {
        rejected.push({
          toolUseId: use.toolUseId,
          tool: use.name,
          code: 'limit_exceeded',
          message: `At most ${MAX_TOOL_CALLS_PER_TURN} tool calls run per turn; this one was not run: call it again next turn`,
        });
        continue;
      }
      calls.push({
        tool: use.name,
        callId: `${level.name}/${callCount}`,
        args: use.input ?? {},
        toolUseId: use.toolUseId,
      });
      callCount++;
    }
    const askChannel = level.ask_user ? level.ask_user.slack_channel : undefined;
    const ref: ConversationRef = await saveConversation(workspace, level.name, n, conversation);
    usage = sumUsage(usage, {
      engineInvocations: 1,
      engineMs: Math.round(performance.now() - started),
      ...(question ? { askTurns: 1 } : { toolTurns: 1 }),
      ...(question && askChannel ? { askPosts: 1 } : {}),
    });
    deps.logger.info('agent turn', {
      ...run,
      scenarioLevel: level.name,
      turn: n,
      tools: calls.map((call) => call.tool),
      asked: question !== undefined,
      inputTokens: response.inputTokens,
      outputTokens: response.outputTokens,
    });
    const levelIndex = scenario.levels.findIndex((candidate) => candidate.name === level.name);
    return {
      level: level.name,
      n,
      status: question ? 'ask' : 'tool_use',
      calls,
      results: [],
      rejected,
      ...(question
        ? {
            question: question.text,
            questionText:
              `:question: ${scenario.name} (tenant ${run.tenant}, run ${run.runId}, step ${level.name}) asks:\n` +
              `${question.text}\n` +
              `Answer with: etp run answer ${run.runId} --text "…" (no answer after ${Math.round(
                (level.ask_user ? level.ask_user.timeout_seconds : 0) / 3600,
              )} h: the run goes on without it)`,
            askCallId: `${ASK_USER_LEVEL}/${levelIndex * 1000 + n}`,
            askToolUseId: question.toolUseId,
            answer: null,
          }
        : {}),
      conversation: ref as TurnState['conversation'],
      callCount,
      records: records as unknown as Record<string, unknown>[],
      usage: usage as unknown as Record<string, unknown>,
    };
  }

  async function wrapup(event: Extract<EngineEvent, { action: 'wrapup' }>): Promise<TurnState> {
    const scenario = scenarioOf(event.scenario);
    const level = levelOf(scenario, event.level, 'agent');
    const parsed = turnStateSchema.safeParse(event.turn);
    const state = parsed.success ? parsed.data : undefined;
    const failure = state?.failure?.Error ?? 'an error inside the platform';
    // The last model error, as the retries left it: connection refused is not throttling.
    const last = failure === 'ModelRetryable' ? modelRetryableCause(state?.failure?.Cause) : undefined;
    const error: ToolErrorInfo = {
      code: failure === 'ModelRetryable' ? (last?.code ?? 'throttled') : 'internal_error',
      message:
        failure === 'ModelRetryable'
          ? `Model ${level.model} kept failing with a retryable error after every retry${last ? `; the last: ${last.message}` : ''}`
          : `The ${level.name} level's turn failed (${failure})`,
      retryable: false,
    };
    const usage = { ...NO_USAGE, ...((state?.usage ?? {}) as Partial<ModelUsage>) };
    const record: AgentLevelRecord = {
      kind: 'agent',
      outcome: 'failed',
      summary: cutSummary(
        fallbackReport(
          scenario,
          event.levels as Record<string, LevelRecord>,
          agentEndInWords('failed', level.max_turns, plainReason(error.code)),
        ),
      ),
      data: {},
      model: level.model,
      turns: state?.n ?? 0,
      callCount: state?.callCount ?? 0,
      calls: ((state?.records ?? []) as unknown as CallRecord[]).slice(0, MAX_AGENT_CALL_RECORDS),
      usage,
      error,
    };
    return {
      level: level.name,
      n: state?.n ?? 0,
      status: 'done',
      calls: [],
      results: [],
      rejected: [],
      callCount: record.callCount,
      records: [],
      record: record as unknown as Record<string, unknown>,
    };
  }

  async function ask(event: Extract<EngineEvent, { action: 'ask' }>): Promise<{ recorded: true }> {
    const asked = now();
    await deps.records.putQuestion({
      tenant: event.tenant,
      runId: event.runId,
      scenario: event.scenario,
      level: event.level,
      turn: event.turn,
      question: event.question,
      askedAt: asked.toISOString(),
      expiresAt: new Date(asked.getTime() + event.timeoutSeconds * 1000).toISOString(),
      posted: event.posted === true,
      taskToken: event.taskToken,
    });
    // Never the token: it resumes the run.
    deps.logger.info('question recorded', {
      tenant: event.tenant,
      runId: event.runId,
      scenarioLevel: event.level,
      turn: event.turn,
    });
    return { recorded: true };
  }

  async function summary(event: Extract<EngineEvent, { action: 'summary' }>): Promise<RunOutput> {
    const scenario = scenarioOf(event.scenario);
    const levels = event.levels as Record<string, LevelRecord>;
    const run: RunKey = { tenant: event.tenant, scenario: scenario.name, runId: event.runId };
    const result = summarizeRun({
      scenario,
      runId: event.runId,
      tenant: event.tenant,
      levels,
      memory: deps.config.functions,
      startedAt: event.startedAt,
      now: now(),
    });
    try {
      await writeJson(deps.workspaces(run), ENGINE_PATHS.summary(), result);
    } catch (err) {
      // The summary is the execution's output too; a workspace failure must not lose it.
      deps.logger.warn('run summary not stored', { ...run, err });
    }
    return {
      scenario: scenario.name,
      runId: event.runId,
      tenant: event.tenant,
      input: event.input,
      levels,
      summary: result,
      completion: runCompletion(result),
    };
  }

  return async (raw, signal) => {
    const parsed = engineEventSchema.safeParse(raw);
    if (!parsed.success) {
      throw new InvalidArgsError(
        `Malformed engine event: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
      );
    }
    const event = parsed.data;
    switch (event.action) {
      case 'start':
        return {
          input: resolveInput(scenarioOf(event.scenario), event.input),
          levels: {},
        } satisfies RunState;
      case 'plan_done':
        return planDone(event);
      case 'turn':
        return turn(event, signal);
      case 'wrapup':
        return wrapup(event);
      case 'ask':
        return ask(event);
      case 'summary':
        return summary(event);
    }
  };
}
