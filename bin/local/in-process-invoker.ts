import type { ToolInvoker } from '../../functions/dispatcher/invoker';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import type { ToolContextServices } from '../../functions/runtime/context';
import { deadlineIn } from '../../functions/runtime/deadline';
import { runToolOnce } from '../../functions/runtime/idempotency';
import { InMemoryIdempotencyStore } from '../../functions/runtime/idempotency-layers';
import type { ToolInvocation } from '../../functions/runtime/invocation';
import type { ToolResult } from '../../functions/runtime/result';
import { type ToolSpec, toolTimeoutSeconds } from '../../functions/runtime/spec';
import { loadTool } from './load-tool';

/**
 * Runs tools in this process (the CLI, tests): the same harness a tool's function
 * runs, with the tool's own timeout as its deadline, and `write` tools once per
 * call as deployed (their records kept in this process's memory: a local run has
 * no idempotency table). Never part of a Lambda bundle.
 */
export class InProcessToolInvoker implements ToolInvoker {
  readonly #records = new InMemoryIdempotencyStore();

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly services: ToolContextServices,
    private readonly maxResultBytes?: number,
  ) {}

  async invoke(spec: ToolSpec, invocation: ToolInvocation): Promise<ToolResult> {
    const tool = loadTool(this.catalog, spec.name);
    const deadline = deadlineIn(toolTimeoutSeconds(spec) * 1000);
    return runToolOnce(tool, invocation, deadline, this.services, this.#records.layer, this.maxResultBytes);
  }
}
