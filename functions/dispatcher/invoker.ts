import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import type { ToolSpec } from '../runtime/spec';

/**
 * Runs a validated call of a tool placed in its own function and returns its
 * ToolResult. Implementations: the Lambda invoker (deployed) and the in-process
 * invoker (CLI, tests). May throw; the dispatcher normalizes.
 */
export interface ToolInvoker {
  invoke(spec: ToolSpec, invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult>;
}
