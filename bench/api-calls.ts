import { loadTool } from '../bin/local/load-tool';
import { deadlineIn } from '../functions/runtime/deadline';
import { runTool } from '../functions/runtime/harness';
import type { ToolResult } from '../functions/runtime/result';
import type { Tool } from '../functions/runtime/spec';
import { toolCatalog } from '../functions/tools/catalog';
import { toolInvocation } from '../test/helpers/events';
import { API_CALL_CASES, type ApiCallCase, clientStubs, loadApiCallCases } from './api-call-cases';
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

export const REGISTERED_TOOLS: ToolSource = {
  has: (name) => toolCatalog.functionTools().some((entry) => entry.spec.name === name),
  load: async (name) => loadTool(toolCatalog, name),
};

/**
 * Runs every case whose tool `tools` has, counting the calls at the mocks.
 * `missing` says, per AWS audit tool without a case, which file to add; `unavailable` the
 * cases whose tool is not registered (yet).
 */
export async function countApiCalls(
  cases: readonly ApiCallCase[] = API_CALL_CASES,
  tools: ToolSource = REGISTERED_TOOLS,
): Promise<{ counts: ApiCallCount[]; missing: string[]; unavailable: string[] }> {
  const counts: ApiCallCount[] = [];
  await runApiCallCases(
    cases.filter((testCase) => tools.has(testCase.tool)),
    tools,
    (testCase, run) => {
      const byCommand: Record<string, number> = {};
      for (const sent of run.sent) {
        const command = `${sent.client.replace(/Client$/, '')} ${sent.command.replace(/Command$/, '')}`;
        byCommand[command] = (byCommand[command] ?? 0) + 1;
      }
      counts.push({
        tool: testCase.tool,
        account: testCase.account,
        calls: run.sent.length,
        byCommand,
        ...(run.result.ok ? {} : { error: run.result.summary }),
      });
    },
  );
  return {
    counts,
    missing: [...loadApiCallCases().problems],
    unavailable: cases.filter((c) => !tools.has(c.tool)).map((c) => c.tool),
  };
}

/** An SDK command a run sent, as the client stub saw it. */
export interface SentCommand {
  /** The client class's name (`EC2Client`). */
  readonly client: string;
  /** The command class's name (`DescribeInstancesCommand`). */
  readonly command: string;
}

/** One case's run: the tool's result and every command it sent, in order per client. */
export interface ApiCallRun {
  readonly result: ToolResult;
  readonly sent: readonly SentCommand[];
}

/**
 * Runs each case through the harness (static keys, 120 s deadline) with every SDK
 * client class stubbed, and hands `onRun` what the tool sent. The stubs are
 * restored at the end, so the caller's own mocks of the same classes are not kept.
 */
export async function runApiCallCases(
  cases: readonly ApiCallCase[],
  tools: ToolSource,
  onRun: (testCase: ApiCallCase, run: ApiCallRun) => void,
): Promise<void> {
  const { stubs, stubOf } = clientStubs([]);
  const services = staticKeyServices();
  try {
    for (const testCase of cases) {
      for (const stub of stubs.values()) stub.reset();
      for (const client of testCase.clients) stubOf(client);
      testCase.arrange(stubOf);
      const tool = await tools.load(testCase.tool);
      const invocation = toolInvocation({ tool: tool.name, args: testCase.args });
      const result = await runTool(tool, invocation, deadlineIn(120_000), services);
      const sent: SentCommand[] = [];
      for (const [client, stub] of stubs) {
        const clientName = (client as unknown as { name: string }).name;
        for (const call of stub.calls()) {
          sent.push({ client: clientName, command: (call.args[0] as object).constructor.name });
        }
      }
      onRun(testCase, { result, sent });
    }
  } finally {
    for (const stub of stubs.values()) stub.restore();
  }
}
