import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { type ErrorCode, PlatformError } from '../runtime/errors';
import { normalizeError } from '../runtime/normalize-error';
import type { ToolErrorInfo } from '../runtime/result';
import { causeText, codedMessage } from './state-errors';

/**
 * The Converse API's message shapes as the engine stores them (Bedrock Runtime
 * API reference, "Converse", "Message", "ContentBlock"): plain JSON, so a
 * conversation can sit in a Step Functions state or a workspace file. Only the
 * blocks the engine uses: text, toolUse and toolResult.
 */
export type ContentBlock =
  | { readonly text: string }
  | { readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: unknown } }
  | {
      readonly toolResult: {
        readonly toolUseId: string;
        readonly content: readonly ({ readonly json: unknown } | { readonly text: string })[];
        readonly status?: 'success' | 'error';
      };
    };

/** One message of a conversation. */
export interface Message {
  readonly role: 'user' | 'assistant';
  readonly content: readonly ContentBlock[];
}

/** A tool as offered in `toolConfig.tools[].toolSpec`. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool's input. */
  readonly inputSchema: Record<string, unknown>;
}

/** One Converse call. */
export interface ConverseRequest {
  readonly modelId: string;
  readonly system: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ModelTool[];
  readonly maxTokens: number;
  readonly temperature?: number;
}

/** What one Converse call returned. */
export interface ConverseResponse {
  readonly message: Message;
  /** `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, `guardrail_intervened`, `content_filtered`… */
  readonly stopReason: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The model's own latency when reported (`metrics.latencyMs`), else the call's wall time. */
  readonly latencyMs: number;
}

/** Calls a model. Throws on failure; {@link normalizeModelError} says what the failure means. */
export interface ModelClient {
  converse(request: ConverseRequest, signal?: AbortSignal): Promise<ConverseResponse>;
}

/** The blocks of a response message the engine keeps: text and toolUse (reasoning and the like are dropped). */
function keptBlocks(content: readonly Record<string, unknown>[] | undefined): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of content ?? []) {
    if (typeof block.text === 'string') blocks.push({ text: block.text });
    const toolUse = block.toolUse as { toolUseId?: unknown; name?: unknown; input?: unknown } | undefined;
    if (toolUse && typeof toolUse.toolUseId === 'string' && typeof toolUse.name === 'string') {
      blocks.push({
        toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name, input: toolUse.input ?? {} },
      });
    }
  }
  return blocks;
}

/**
 * Converse through the Bedrock Runtime SDK client: deployed with the engine
 * function's role, locally with the default credential chain or, against a
 * Converse-compatible endpoint (`etp scenario run --model-endpoint`), with the
 * client that endpoint was given.
 *
 * @example
 * const model = new BedrockModelClient(new BedrockRuntimeClient({ maxAttempts: 3 }));
 * const response = await model.converse({ modelId, system, messages, tools, maxTokens: 2000 });
 */
export class BedrockModelClient implements ModelClient {
  constructor(private readonly client: BedrockRuntimeClient) {}

  async converse(request: ConverseRequest, signal?: AbortSignal): Promise<ConverseResponse> {
    const input: ConverseCommandInput = {
      modelId: request.modelId,
      system: [{ text: request.system }],
      messages: request.messages as ConverseCommandInput['messages'],
      inferenceConfig: {
        maxTokens: request.maxTokens,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      },
      ...(request.tools.length > 0
        ? {
            toolConfig: {
              tools: request.tools.map((tool) => ({
                toolSpec: {
                  name: tool.name,
                  description: tool.description,
                  inputSchema: { json: tool.inputSchema as never },
                },
              })),
            },
          }
        : {}),
    };
    const started = performance.now();
    const output = await this.client.send(new ConverseCommand(input), { abortSignal: signal });
    const message = output.output?.message;
    return {
      message: {
        role: 'assistant',
        content: keptBlocks(message?.content as Record<string, unknown>[] | undefined),
      },
      stopReason: output.stopReason ?? 'end_turn',
      inputTokens: output.usage?.inputTokens ?? 0,
      outputTokens: output.usage?.outputTokens ?? 0,
      latencyMs: output.metrics?.latencyMs ?? Math.round(performance.now() - started),
    };
  }
}

/**
 * What a failed Converse call means, in the platform's error codes, with the
 * model named (Bedrock Runtime API reference, "Converse", Errors). Throttling,
 * timeouts and the service's 5xx are retryable (the state machine retries them
 * with backoff); a missing model access, an unknown model id or a request the
 * model refuses are not, and end the level with `model_error`.
 */
export function normalizeModelError(err: unknown, modelId: string): ToolErrorInfo {
  const name = (err as { name?: unknown } | null)?.name;
  const message = err instanceof Error ? err.message : String(err);
  const explain = (code: ToolErrorInfo['code'], text: string, retryable: boolean): ToolErrorInfo => ({
    code,
    message: `${text} (${String(name)}: ${message})`.slice(0, 1000),
    retryable,
    service: 'bedrock',
    details: { awsError: name, modelId },
  });
  switch (name) {
    case 'AccessDeniedException':
      return explain(
        'access_denied',
        `The platform may not invoke model ${modelId}: enable access to it in the Bedrock console, and check the engine role's bedrock:InvokeModel grant`,
        false,
      );
    case 'ResourceNotFoundException':
      return explain('not_found', `Model ${modelId} does not exist in this region or account`, false);
    case 'ServiceQuotaExceededException':
      return explain('throttled', `The account's Bedrock quota for ${modelId} is used up for now`, true);
    case 'ModelNotReadyException':
      return explain('upstream_error', `Model ${modelId} is not ready yet`, true);
    case 'ModelTimeoutException':
      return explain('timeout', `Model ${modelId} took too long to answer`, true);
    case 'ModelErrorException':
      return explain('upstream_error', `Model ${modelId} failed while answering`, false);
    case 'ThrottlingException':
      return explain('throttled', `Bedrock is throttling calls to ${modelId}`, true);
    case 'ServiceUnavailableException':
    case 'InternalServerException':
      return explain('upstream_error', `Bedrock could not answer for ${modelId} just now`, true);
    case 'ValidationException':
      return explain('invalid_args', `Bedrock refused the request to ${modelId}`, false);
    default:
      return { ...normalizeError('model', err, 'bedrock'), details: { awsError: name, modelId } };
  }
}

/**
 * Thrown by the engine for a retryable model failure, so the state machine's
 * Retry (matched on this name) waits with backoff outside Lambda instead of
 * sleeping in a billed invocation.
 */
export class ModelRetryableError extends PlatformError {
  override readonly name = 'ModelRetryable';

  /** @param error - the normalized model error; the message carries its code (`throttled: …`), as the state's Cause will. */
  constructor(error: { readonly code: ErrorCode; readonly message: string }) {
    super(error.code, `${error.code}: ${error.message}`, { retryable: true, service: 'bedrock' });
  }
}

/**
 * The model error a state's Catch of {@link ModelRetryableError} carries in its
 * `Cause` (the Lambda error's JSON, `errorMessage` = `<code>: <message>`, or that
 * text itself), or undefined when the Cause says nothing readable.
 */
export function modelRetryableCause(
  cause: string | undefined,
): { code: ErrorCode; message: string } | undefined {
  return codedMessage(causeText(cause));
}

/**
 * Settings of the engine's Bedrock Runtime client: the SDK's `standard` retries
 * (3 attempts, backoff with jitter, throttling included) for short bursts, the
 * state machine's Retry for longer ones; a model may take minutes on a long
 * answer, so one attempt may wait up to 120 s for the response.
 */
export const MODEL_CLIENT_SETTINGS = {
  maxAttempts: 3,
  retryMode: 'standard',
  requestHandler: { requestTimeout: 120_000 },
} as const;
