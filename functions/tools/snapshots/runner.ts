/**
 * The `Runner` view of the snapshot tools (docs/design.md, "Snapshot tools"): the
 * original investigation toolset's contract, kept for orchestrators that call
 * tools by name with plain JSON — `schema(name)`, `all()`, `run(name, input)`.
 * Every call still goes through the harness: validation before any remote
 * call, normalized errors, redaction, bounding.
 */
import type { ToolContextServices } from '../../runtime/context';
import { deadlineIn } from '../../runtime/deadline';
import { runTool } from '../../runtime/harness';
import { assertToolInvocation, type ToolInvocation } from '../../runtime/invocation';
import { ToolRegistry } from '../../runtime/registry';
import {
  type PublicToolSpec,
  publicSpec,
  type Tool,
  toJsonSchema,
  toolTimeoutSeconds,
} from '../../runtime/spec';
import { diffSnapshotsTool } from './diff-snapshots';
import { inspectFindingTool } from './inspect-finding';
import { listSnapshotsTool } from './list-snapshots';
import { scanSnapshotsTool } from './scan-snapshots';
import { snapshotStatsTool } from './snapshot-stats';

/** Whose calls the runner makes. */
export interface RunnerInvocation {
  readonly tenant: string;
  readonly runId: string;
  /** @default none: the run's scratch workspace keeps its findings */
  readonly scenario?: string;
  /** @default 'runner' */
  readonly level?: string;
}

/** What a runner is built from. */
export interface RunnerOptions {
  /** Tool-host services (secrets, AWS access, logger), as a tool function has them. */
  readonly services: ToolContextServices;
  readonly invocation: RunnerInvocation;
  /** The tools. @default every snapshot tool ({@link snapshotTools}) */
  readonly tools?: readonly Tool[];
}

/**
 * The snapshot tools as deployed: their implementations, which the catalog
 * registers by spec and module path (test/unit/tools/snapshots/runner.test.ts
 * holds the two lists equal).
 */
export function snapshotTools(): Tool[] {
  return [
    listSnapshotsTool,
    snapshotStatsTool,
    diffSnapshotsTool,
    inspectFindingTool,
    scanSnapshotsTool,
  ] as Tool[];
}

/**
 * Runs the snapshot tools by name.
 *
 * @example
 * const runner = new SnapshotToolRunner({ services, invocation: { tenant: 'acme', runId: 'r-1' } });
 * runner.all().map((t) => t.name);                 // ['diff_snapshots', 'inspect_finding', …]
 * JSON.parse(await runner.run('list_snapshots', { limit: 5 })).ok;
 * runner.schema('nope');                           // throws UnknownToolError listing the known names
 */
export class SnapshotToolRunner {
  private readonly registry: ToolRegistry<Tool>;
  private calls = 0;

  /** @throws InvalidArgsError when the invocation's tenant, run id, scenario or level breaks the platform's rules. */
  constructor(private readonly options: RunnerOptions) {
    this.registry = new ToolRegistry(options.tools ?? snapshotTools());
    assertToolInvocation(this.invocationOf('list_snapshots', undefined, 0));
  }

  /**
   * The tool's input JSON Schema (draft 2020-12), a fresh object.
   *
   * @throws UnknownToolError (`unknown_tool`) listing the known names.
   */
  schema(name: string): Record<string, unknown> {
    return toJsonSchema(this.registry.get(name).inputSchema);
  }

  /** Every tool's public spec, sorted by name: new objects each call, so callers may change them freely. */
  all(): PublicToolSpec[] {
    return this.registry.list().map(publicSpec);
  }

  /**
   * Runs a tool and returns its ToolResult as JSON text. Never rejects for a
   * tool's failure (that is `ok: false` in the JSON), only for an unknown name.
   *
   * @param input - the tool's arguments (an object, or a JSON string of one).
   * @throws UnknownToolError (`unknown_tool`) listing the known names.
   */
  async run(name: string, input: unknown): Promise<string> {
    const tool = this.registry.get(name);
    const result = await runTool(
      tool,
      this.invocationOf(name, input, this.calls++),
      deadlineIn(toolTimeoutSeconds(tool) * 1000),
      this.options.services,
    );
    return JSON.stringify(result);
  }

  private invocationOf(name: string, input: unknown, index: number): ToolInvocation {
    const { invocation } = this.options;
    const level = invocation.level ?? 'runner';
    return {
      tenant: invocation.tenant,
      runId: invocation.runId,
      ...(invocation.scenario ? { scenario: invocation.scenario } : {}),
      level,
      tool: name,
      args: input,
      callId: `${level}/${index}`,
    };
  }
}
