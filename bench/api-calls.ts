import { loadTool } from '../bin/local/load-tool';
import { deadlineIn } from '../functions/runtime/deadline';
import { runTool } from '../functions/runtime/harness';
import type { Tool } from '../functions/runtime/spec';
import { toolCatalog } from '../functions/tools/catalog';
import { toolInvocation } from '../test/helpers/events';
import { API_CALL_CASES, type ApiCallCase, clientStubs } from './api-call-cases';
import { staticKeyServices } from './aws-fixtures';

/** Calls one tool made, by command. */
export interface ApiCallCount {
  readonly tool: string;
  readonly account: string;
  /** Total AWS API calls in the run. */
  readonly calls: number;
  /** Client and command, without their suffixes → calls (`EC2 DescribeInstances: 20`). */
  readonly byCommand: Readonly<Record<string, number>>;
  /** Set when the tool returned `ok: false`: the count is then of a failed run. */
  readonly error?: string;
}

/** Where the tools come from: the catalog by default. */
export interface ToolSource {
  /** Whether the tool is registered and implemented. */
  has(name: string): boolean;
  load(name: string): Promise<Tool>;
}

const REGISTERED: ToolSource = {
  has: (name) => toolCatalog.functionTools().some((entry) => entry.spec.name === name),
  load: async (name) => loadTool(toolCatalog, name),
};

/**
 * Runs every case whose tool `tools` has, counting the calls at the mocks.
 * `missing` lists the registered `aws` tools without a case; `unavailable` the
 * cases whose tool is not registered (yet).
 */
export async function countApiCalls(
  cases: readonly ApiCallCase[] = API_CALL_CASES,
  tools: ToolSource = REGISTERED,
): Promise<{ counts: ApiCallCount[]; missing: string[]; unavailable: string[] }> {
  const { stubs, stubOf } = clientStubs([]);
  const services = staticKeyServices();
  const counts: ApiCallCount[] = [];
  try {
    for (const testCase of cases) {
      if (!tools.has(testCase.tool)) continue;
      for (const stub of stubs.values()) stub.reset();
      testCase.arrange(stubOf);
      const tool = await tools.load(testCase.tool);
      const invocation = toolInvocation({ tool: tool.name, args: testCase.args });
      const result = await runTool(tool, invocation, deadlineIn(120_000), services);
      const byCommand: Record<string, number> = {};
      for (const [client, stub] of stubs) {
        const service = (client as unknown as { name: string }).name.replace(/Client$/, '');
        for (const call of stub.calls()) {
          const command = `${service} ${(call.args[0] as object).constructor.name.replace(/Command$/, '')}`;
          byCommand[command] = (byCommand[command] ?? 0) + 1;
        }
      }
      counts.push({
        tool: testCase.tool,
        account: testCase.account,
        calls: Object.values(byCommand).reduce((sum, n) => sum + n, 0),
        byCommand,
        ...(result.ok ? {} : { error: result.summary }),
      });
    }
  } finally {
    for (const stub of stubs.values()) stub.restore();
  }
  const covered = new Set(cases.map((c) => c.tool));
  return {
    counts,
    missing: toolCatalog
      .list()
      .filter((spec) => spec.tags.includes('aws') && !covered.has(spec.name))
      .map((spec) => spec.name),
    unavailable: cases.filter((c) => !tools.has(c.tool)).map((c) => c.tool),
  };
}
