import type { ToolContextServices } from '../runtime/context';
import { deadlineIn } from '../runtime/deadline';
import { runTool } from '../runtime/harness';
import type { ToolInvocation } from '../runtime/invocation';
import type { ToolResult } from '../runtime/result';
import { type ToolSpec, toolTimeoutSeconds } from '../runtime/spec';
import { loadTool } from '../tools/implementations';
import type { ToolInvoker } from './invoker';

/**
 * Runs tools in this process (the CLI, tests): the same harness a tool's function
 * runs, with the tool's own timeout as its deadline. Never part of a Lambda bundle.
 */
export class InProcessToolInvoker implements ToolInvoker {
  constructor(
    private readonly services: ToolContextServices,
    private readonly maxResultBytes?: number,
  ) {}

  async invoke(spec: ToolSpec, invocation: ToolInvocation): Promise<ToolResult> {
    const tool = await loadTool(spec.name);
    const deadline = deadlineIn(toolTimeoutSeconds(spec) * 1000);
    return runTool(tool, invocation, deadline, this.services, this.maxResultBytes);
  }
}
