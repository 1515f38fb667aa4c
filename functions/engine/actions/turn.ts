/**
 * The `turn` action: one model turn of an agent level. The previous turn's
 * results are appended to the conversation, the model is called (model-turn.ts)
 * and its answer handled by its stop reason (docs/scenarios.md, "Stop reasons"):
 * calls to dispatch, a question to ask, a cut or malformed answer retried with
 * none of its calls run, or the level's end.
 */
import type { ResolvedPins } from '../../dispatcher/pins';
import { jsonByteLength } from '../../runtime/bound';
import { PlatformError } from '../../runtime/errors';
import {
  type ConversationRef,
  loadConversation,
  type StoredConversation,
  saveConversation,
  textOf,
  toolUsesOf,
} from '../conversation';
import { cleanAnswer, toolUseIdsOf } from '../converse-rules';
import { type EngineContext, openLevel } from '../engine-context';
import { type Answer, type EngineEvent, type TurnState, turnStateSchema } from '../events';
import { levelTools, systemPrompt } from '../level-tools';
import {
  DEFAULT_LEVEL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_CALL_TIMEOUT_SECONDS,
  MAX_LEVEL_SUMMARY_CHARS,
  MODEL_RETRY_ATTEMPTS,
  turnArgsBudgetBytes,
} from '../limits';
import { callModel } from '../model-turn';
import { resolvePins } from '../pins';
import { renderPrompt } from '../prompt';
import {
  type CallRecord,
  type LevelRecord,
  type ModelUsage,
  NO_USAGE,
  sumUsage,
  writeToolsOf,
} from '../records';
import { budgetOf, modelTurnUse, RunBudget, tokensOfBytes, usdOf } from '../run-budget';
import { closeLevel, type LevelEnd } from './level-end';
import { answersOfTurn, appendAnswers } from './turn-answers';
import { admittedCalls, spentWithLevel } from './turn-budget';
import { boundedAnswer, turnCalls } from './turn-calls';
import { questionFields } from './turn-question';
import { stopHandling } from './turn-stop';

/** Runs one turn; returns the next turn state (`tool_use`, `ask` or `done`). */
export async function turn(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'turn' }>,
  signal?: AbortSignal,
): Promise<TurnState> {
  const started = performance.now();
  const { scenario, level, run, workspace } = openLevel(ctx, event, 'agent');
  const levels = event.levels as Record<string, LevelRecord>;
  const parsed = turnStateSchema().safeParse(event.turn);
  if (!parsed.success)
    throw new PlatformError('internal_error', `Malformed turn state: ${parsed.error.message}`);
  const state = parsed.data;
  const fresh = state.status === 'start' || state.level !== level.name;
  let n = fresh ? 0 : state.n;
  let usage: ModelUsage = fresh ? NO_USAGE : { ...NO_USAGE, ...(state.usage as Partial<ModelUsage>) };
  const records: CallRecord[] = fresh ? [] : [...(state.records as unknown as CallRecord[])];
  let callCount = fresh ? 0 : state.callCount;
  const startedAtMs = fresh ? ctx.now().getTime() : (state.startedAtMs ?? ctx.now().getTime());
  const promptContext = {
    input: event.input,
    levels,
    run: { id: run.runId, tenant: run.tenant, scenario: run.scenario },
    workspace,
  };
  // Resolved once, when the level starts: a model of this level cannot have changed what they come from.
  const pins: ResolvedPins | undefined = fresh
    ? level.pin
      ? await resolvePins(level, promptContext)
      : undefined
    : (state.pins as ResolvedPins | undefined);
  const malformed = fresh ? 0 : (state.malformed ?? 0);
  const maxTokens = fresh ? level.max_tokens : (state.maxTokens ?? level.max_tokens);
  let conversation: StoredConversation;

  const end = (levelEnd: LevelEnd): Promise<TurnState> => {
    usage = sumUsage(usage, { engineInvocations: 1, engineMs: Math.round(performance.now() - started) });
    ctx.logger.info('agent level done', {
      ...run,
      scenarioLevel: level.name,
      outcome: levelEnd.outcome,
      turns: n,
      ...(levelEnd.stopReason ? { stopReason: levelEnd.stopReason } : {}),
    });
    return closeLevel(workspace, scenario, level, levels, levelEnd, conversation, {
      turns: n,
      callCount,
      records,
      usage,
    });
  };

  if (fresh) {
    const prompt = await renderPrompt(level.prompt, promptContext);
    conversation = {
      system: systemPrompt(scenario, level, run.tenant),
      // A blank text block is refused by Converse: a prompt whose references rendered to nothing says so.
      messages: [
        { role: 'user', content: [{ text: prompt.trim() === '' ? '(The prompt is empty.)' : prompt }] },
      ],
    };
  } else {
    conversation = await loadConversation(workspace, state.conversation);
    const answered = answersOfTurn(state, conversation, workspace, writeToolsOf(ctx.catalog));
    records.push(...answered.records);
    appendAnswers(conversation, answered.blocks, state.notice);
    if (state.status === 'ask' && state.askToolUseId) {
      const answer = state.answer as Answer | null | undefined;
      // The no-answer Pass the state machine went through: one more transition.
      if (!answer?.answered) usage = sumUsage(usage, { unanswered: 1 });
      await ctx.records.closeQuestion(
        run.tenant,
        run.runId,
        level.name,
        state.n,
        answer?.answered ? 'answered' : answer?.reason === 'timeout' ? 'timed_out' : 'failed',
      );
    }
    if (answered.finish) return end({ outcome: 'finished', finish: answered.finish });
  }
  if (n >= level.max_turns) return end({ outcome: 'max_turns' });

  // Time: each call bounded, and the level's model time in all (a hung model costs minutes, not retries
  // of a 5-minute function). A first turn has no start time in the state yet when the state machine
  // retries it: its calls get an equal share of the level's time per attempt instead.
  const levelMs = (level.level_timeout_seconds ?? DEFAULT_LEVEL_TIMEOUT_SECONDS) * 1000;
  const callMs = (level.model_call_timeout_seconds ?? DEFAULT_MODEL_CALL_TIMEOUT_SECONDS) * 1000;
  const left = fresh ? levelMs : startedAtMs + levelMs - ctx.now().getTime();
  if (left <= 0) {
    return end({
      outcome: 'model_error',
      error: {
        code: 'timeout',
        message: `Model ${level.model} used up the ${levelMs / 1000} s this step allows for model calls`,
        retryable: false,
        service: 'bedrock',
      },
    });
  }
  const timeoutMs = fresh
    ? Math.min(callMs, Math.floor(levelMs / (MODEL_RETRY_ATTEMPTS + 1)))
    : Math.min(callMs, left);
  const tools = levelTools(ctx.catalog, level, pins);
  const limit = budgetOf(event.input);
  // What the run has spent, this level's turns so far included (the summary's estimate).
  const spent = () =>
    spentWithLevel(ctx, scenario, levels, level, { turns: n, callCount, records, usage, startedMs: started });
  if (limit !== undefined) {
    const estimateUsd = usdOf(
      modelTurnUse({
        model: level.model,
        inputTokens: tokensOfBytes(jsonByteLength(conversation) + jsonByteLength(tools)),
        maxTokens,
        timeoutMs,
        memory: ctx.config.functions,
      }),
    );
    const budget = new RunBudget(limit, spent());
    if (!budget.admit(estimateUsd)) {
      ctx.logger.info('model turn not started: run budget', {
        ...run,
        scenarioLevel: level.name,
        turn: n + 1,
        estimateUsd,
        spentUsd: budget.spent,
        budgetUsd: limit,
      });
      return end({ outcome: 'budget_exhausted', budgetSkipped: { turn: n + 1, estimateUsd } });
    }
  }
  const called = await callModel(
    ctx.model,
    level,
    conversation,
    tools,
    maxTokens,
    { timeoutMs, retryFits: fresh || left - timeoutMs > 0 },
    signal,
  ).catch((err: unknown) => {
    ctx.logger.warn('model call failed', { ...run, scenarioLevel: level.name, turn: n + 1, err });
    throw err;
  });
  if (called.kind === 'error') {
    ctx.logger.warn('model call failed', {
      ...run,
      scenarioLevel: level.name,
      turn: n + 1,
      error: called.error,
    });
    return end({ outcome: 'model_error', error: called.error });
  }
  if (called.kind === 'overflow') {
    conversation = called.conversation;
    return end({ outcome: 'context_window_exceeded', stopReason: 'model_context_window_exceeded' });
  }
  if (called.compacted)
    ctx.logger.info('conversation compacted', { ...run, scenarioLevel: level.name, turn: n + 1 });
  conversation = called.conversation;
  const { response } = called;
  n += 1;
  usage = sumUsage(usage, {
    inputTokens: response.inputTokens,
    outputTokens: response.outputTokens,
    modelCalls: 1,
    modelMs: response.latencyMs,
  });

  // Cleaned before it is stored: nothing the Converse API would refuse is ever sent back.
  const cleaned = cleanAnswer(
    response.message,
    toolUseIdsOf(conversation.messages),
    (p) => `engine_${n}_${p}`,
  );
  const budget = turnArgsBudgetBytes(level);
  const bounded = boundedAnswer(cleaned.message, budget);
  const cleaning = [...cleaned.cleaning, ...bounded.cleaning];
  if (cleaning.length > 0)
    ctx.logger.warn('model answer cleaned', { ...run, scenarioLevel: level.name, turn: n, cleaning });
  const said = textOf(response.message).slice(0, MAX_LEVEL_SUMMARY_CHARS);
  const uses = toolUsesOf(cleaned.message);
  const stopReason = response.stopReason;
  const handling = stopHandling(level, { stopReason, said, uses }, { maxTokens, malformed });
  if (handling.kind === 'end') {
    conversation.messages.push(bounded.message);
    return end(handling.end);
  }
  if (handling.kind === 'retry') {
    if (handling.keep) conversation.messages.push(bounded.message);
    ctx.logger.warn('model answer not used', {
      ...run,
      scenarioLevel: level.name,
      turn: n,
      stopReason,
      calls: uses.length,
    });
    return nextState({
      status: 'tool_use',
      calls: [],
      rejected: handling.rejected,
      notice: handling.notice,
      maxTokens: handling.maxTokens,
      malformed: handling.malformed,
    });
  }

  conversation.messages.push(bounded.message);
  if (uses.length === 0) return end({ outcome: 'stopped', text: said });
  const sorted = admittedCalls(
    ctx,
    level,
    turnCalls(ctx.catalog, level, uses, cleaned.repaired, usage.askTurns, callCount),
    limit,
    spent,
  );
  callCount += sorted.calls.length;
  const question = sorted.question;
  const askChannel = level.ask_user ? level.ask_user.slack_channel : undefined;
  usage = sumUsage(usage, {
    ...(question ? { askTurns: 1 } : {}),
    ...(question && askChannel ? { askPosts: 1 } : {}),
  });
  ctx.logger.info('agent turn', {
    ...run,
    scenarioLevel: level.name,
    turn: n,
    tools: sorted.calls.map((call) => call.tool),
    asked: question !== undefined,
    inputTokens: response.inputTokens,
    outputTokens: response.outputTokens,
  });
  return nextState({
    status: question ? 'ask' : 'tool_use',
    calls: sorted.calls,
    rejected: sorted.rejected,
    maxTokens,
    malformed: 0,
    ...(question ? questionFields(scenario, level, run, n, question) : {}),
  });

  /** The state of a turn that goes on: the conversation saved, the usage of this invocation added. */
  async function nextState(
    part: Pick<TurnState, 'status' | 'calls' | 'rejected' | 'malformed'> &
      Partial<
        Pick<
          TurnState,
          'notice' | 'maxTokens' | 'question' | 'questionText' | 'askCallId' | 'askToolUseId' | 'answer'
        >
      >,
  ): Promise<TurnState> {
    const ref: ConversationRef = await saveConversation(workspace, level.name, n, conversation);
    usage = sumUsage(usage, {
      engineInvocations: 1,
      engineMs: Math.round(performance.now() - started),
      ...(part.status === 'tool_use' ? { toolTurns: 1 } : {}),
    });
    return {
      level: level.name,
      n,
      results: [],
      ...part,
      ...(part.notice === undefined ? {} : { notice: part.notice }),
      ...(pins ? { pins: pins as unknown as TurnState['pins'] } : {}),
      startedAtMs,
      conversation: ref as TurnState['conversation'],
      callCount,
      records: records as unknown as Record<string, unknown>[],
      usage: usage as unknown as Record<string, unknown>,
    };
  }
}
