/**
 * The turn state of a model turn that asks the user (`ask_user`): the question, the Slack
 * message that carries it, and the id of its post (docs/scenarios.md, "ask_user").
 */
import { type AgentLevel, ASK_USER_LEVEL, type ScenarioDefinition } from '../definition';
import type { TurnState } from '../events';
import type { RunKey } from '../workspaces';

/** The turn state's fields for `question`, asked at turn `n` of `level`. */
export function questionFields(
  scenario: ScenarioDefinition,
  level: AgentLevel,
  run: RunKey,
  n: number,
  question: { readonly text: string; readonly toolUseId: string },
): Pick<TurnState, 'question' | 'questionText' | 'askCallId' | 'askToolUseId' | 'answer'> {
  const levelIndex = scenario.levels.findIndex((candidate) => candidate.name === level.name);
  return {
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
  };
}
