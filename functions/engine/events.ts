/**
 * The engine function's events: what each Task state of a scenario's state
 * machine sends it (lib/scenarios/asl.ts builds them), narrowed with zod before
 * use. The engine keeps the run's bookkeeping; tools still go through the
 * dispatcher only.
 */
import * as z from 'zod/mini';
import { builtOnce } from '../runtime/built-once';
import { CALL_ID, RUN_ID, SNAKE_CASE_NAME, TENANT_ID } from '../runtime/ids';
import '../runtime/zod-locale';

const name = builtOnce(() => z.string().check(z.regex(SNAKE_CASE_NAME.pattern, SNAKE_CASE_NAME.accepted)));
const runId = builtOnce(() => z.string().check(z.regex(RUN_ID.pattern, RUN_ID.accepted)));
const tenant = builtOnce(() => z.string().check(z.regex(TENANT_ID.pattern, TENANT_ID.accepted)));
const record = builtOnce(() => z.record(z.string(), z.unknown()));

/** A call the model asked for, as the turn's Map dispatches it. */
const pendingCall = builtOnce(() =>
  z.object({
    tool: z.string(),
    callId: z.string().check(z.regex(CALL_ID.pattern, CALL_ID.accepted)),
    args: z.unknown(),
    toolUseId: z.string(),
  }),
);

/** A toolUse the engine answered itself (never dispatched). */
const rejectedCall = builtOnce(() =>
  z.object({
    toolUseId: z.string(),
    tool: z.string(),
    code: z.string(),
    message: z.string(),
    /** Refused because of the run budget: the call's estimate, in USD. */
    budgetUsd: z.optional(z.number()),
  }),
);

/** An answer to `ask_user`: from `etp run answer` (SendTaskSuccess) or the state machine's no-answer states. */
const answer = builtOnce(() =>
  z.object({
    answered: z.boolean(),
    text: z.optional(z.string()),
    by: z.optional(z.string()),
    at: z.optional(z.string()),
    reason: z.optional(z.string()),
  }),
);

/** Where a conversation is: inline in the state, or at a path of the run's workspace. */
const conversationRef = builtOnce(() =>
  z.object({ path: z.optional(z.string()), inline: z.optional(record()) }),
);

/**
 * The agent loop's state between turns (`$.turn`): written by the engine's
 * `turn` action, the Map adds `results`, the ask states add `answer` and `askPost`.
 */
export const turnStateSchema = builtOnce(() =>
  z.object({
    level: name(),
    /** Model turns taken so far. */
    n: z.int().check(z.minimum(0)),
    status: z.enum(['start', 'tool_use', 'ask', 'done']),
    calls: z._default(z.array(pendingCall()), []),
    results: z._default(z.array(z.unknown()), []),
    rejected: z._default(z.array(rejectedCall()), []),
    question: z.optional(z.string()),
    questionText: z.optional(z.string()),
    askCallId: z.optional(z.string()),
    askToolUseId: z.optional(z.string()),
    answer: z.optional(z.nullable(answer())),
    askPost: z.optional(z.unknown()),
    conversation: z.optional(conversationRef()),
    callCount: z._default(z.int(), 0),
    records: z._default(z.array(record()), []),
    usage: z.optional(record()),
    record: z.optional(record()),
    /**
     * The level's pins as resolved when it started (functions/dispatcher/pins.ts,
     * `ResolvedPins`): every dispatched call's envelope carries them.
     */
    pins: z.optional(z.record(z.string(), z.record(z.string(), record()))),
    /** The next model call's output budget, when a cut answer raised it above the level's `max_tokens`. */
    maxTokens: z.optional(z.int().check(z.minimum(1))),
    /** Text the engine adds to the next user message (why the last answer was not used). */
    notice: z.optional(z.string()),
    /** Malformed answers retried so far this level. */
    malformed: z.optional(z.int().check(z.minimum(0))),
    /** When the level's first turn started, in ms since the epoch (the level's model time is bounded from it). */
    startedAtMs: z.optional(z.number()),
    /** Set by the state machine's Catch when the `turn` Task failed for good (`{ Error, Cause }`). */
    failure: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
  }),
);

/** `$.turn`. */
export type TurnState = z.output<ReturnType<typeof turnStateSchema>>;
/** A call of a turn. */
export type PendingCall = z.output<ReturnType<typeof pendingCall>>;
/** A toolUse the engine answered itself. */
export type RejectedCall = z.output<ReturnType<typeof rejectedCall>>;
/** An answer to a question. */
export type Answer = z.output<ReturnType<typeof answer>>;

const base = () => ({ scenario: name(), runId: runId() });
const withState = () => ({ ...base(), tenant: tenant(), input: record(), levels: record() });

/** Every engine event, by `action`. */
export const engineEventSchema = builtOnce(() =>
  z.discriminatedUnion('action', [
    /** The first state: check the execution input and merge it over the defaults. */
    z.object({ action: z.literal('start'), ...base(), input: z.unknown() }),
    /** Before a plan level's Map when the run has a budget: the calls that fit it (actions/plan-gate.ts). */
    z.object({
      action: z.literal('plan_gate'),
      ...withState(),
      level: name(),
      pending: z.object({ calls: z.array(z.unknown()) }),
    }),
    /** After a plan level's Map: store the results, track findings, keep compact records. */
    z.object({
      action: z.literal('plan_done'),
      ...withState(),
      level: name(),
      results: z.array(z.unknown()),
    }),
    /** A per-account level's first state: the accounts to audit, written to the workspace. */
    z.object({ action: z.literal('org_targets'), ...withState(), level: name() }),
    /** In a child execution: one member account's results, findings and record. */
    z.object({
      action: z.literal('account_done'),
      ...base(),
      tenant: tenant(),
      level: name(),
      account: z.object({ accountId: z.string().check(z.regex(/^\d{12}$/)), name: z.string() }),
      previousRunId: z.nullable(runId()),
      results: z.array(z.unknown()),
    }),
    /** After a per-account level's Distributed Map: the organization report and the level's record. */
    z.object({ action: z.literal('org_done'), ...withState(), level: name(), org: record() }),
    /** One model turn of an agent level. */
    z.object({ action: z.literal('turn'), ...withState(), level: name(), turn: z.unknown() }),
    /** Closes an agent level whose `turn` Task failed for good. */
    z.object({ action: z.literal('wrapup'), ...withState(), level: name(), turn: z.unknown() }),
    /** Records an `ask_user` question; invoked with `.waitForTaskToken`. */
    z.object({
      action: z.literal('ask'),
      ...base(),
      tenant: tenant(),
      level: name(),
      turn: z.int(),
      question: z.string(),
      taskToken: z.string().check(z.minLength(1)),
      timeoutSeconds: z.int().check(z.minimum(1)),
      posted: z._default(z.unknown(), false),
    }),
    /** The last state: the run summary. */
    z.object({ action: z.literal('summary'), ...withState(), startedAt: z.optional(z.string()) }),
  ]),
);

/** An engine event. */
export type EngineEvent = z.output<ReturnType<typeof engineEventSchema>>;
