/**
 * The platform as an MCP server (MCP specification 2025-11-25, "Tools"), on the
 * official TypeScript SDK's low-level `Server`: `tools/list` lists the access
 * profile's tools (functions/dispatcher/formats: `outputSchema`, annotations),
 * `tools/call` goes through the dispatcher core like every other entry point.
 * The SDK's `McpServer.registerTool` is not used: it validates arguments with
 * its own zod schemas and reports violations its own way, where the dispatcher
 * is the one validator and its `invalid_args` message is what a model fixes its
 * call from. Transports (stdio for `etp mcp`, Streamable HTTP behind the
 * dispatcher's function URL) are attached by the caller.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolCatalog } from '../../runtime/catalog';
import type { Deadline } from '../../runtime/deadline';
import { PlatformError } from '../../runtime/errors';
import { failureResult, type ToolResult } from '../../runtime/result';
import type { ProfileScope } from '../access';
import { entryCallIdentity, logicalCallKey } from '../adapters/call-identity';
import type { Dispatch } from '../dispatch';
import type { McpTool } from '../formats/mcp-format';
import { IDEMPOTENCY_META_KEY } from './json-rpc-guard';

/** The server's name in `initialize` (`serverInfo.name`). */
export const MCP_SERVER_NAME = 'external-tools-platform';

/** What an MCP server is built from. */
export interface McpServerOptions {
  /**
   * The registry, or a function loading it on first use (`etp mcp`: `initialize`
   * and a precomputed `tools/list` are answered before the catalog loads).
   */
  readonly catalog: ToolCatalog | (() => ToolCatalog);
  /**
   * The `tools/list` entries of the profile's tools, when they are known without
   * the catalog (`etp mcp`'s precomputed list, bin/cli/mcp-tools.ts). By default
   * each is the catalog's tool in the MCP format (functions/dispatcher/formats).
   */
  readonly listTools?: (names: readonly string[]) => McpTool[];
  readonly dispatch: Dispatch;
  /** The access profile of the connection: its tenant and tools. */
  readonly scope: ProfileScope;
  /** `serverInfo.version`. */
  readonly version: string;
  /** What groups this connection's calls (a random id per stdio process, the caller's IAM principal over HTTP). */
  readonly session: string;
  /** Clock, epoch ms, for the logical-call window (tests). @default Date.now */
  readonly now?: () => number;
  /** The deadline of one call (the Lambda invocation's remaining time, or the local call budget). */
  readonly deadline: () => Deadline;
}

/** A ToolResult as an MCP tool result: `structuredContent`, the same JSON as text, `isError` when `ok` is false. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result as unknown as Record<string, unknown>,
    isError: !result.ok,
  };
}

/**
 * The registered tools among `names`, in the MCP format (the formats module is
 * loaded here, on the first `tools/list` that needs it).
 */
export function mcpToolsOf(catalog: ToolCatalog, names: readonly string[]): McpTool[] {
  const { toMcpTool } = require('../formats/mcp-format') as typeof import('../formats/mcp-format');
  return names.filter((name) => catalog.has(name)).map((name) => toMcpTool(catalog.get(name)));
}

/**
 * An MCP server for one access profile. A tool failure — invalid arguments, a
 * tool outside the profile, an unknown tool, the tool's own error — is a tool
 * result with `isError: true` and the normalized error (the ToolResult), never a
 * JSON-RPC error, so the model reads it and corrects its call.
 *
 * @example
 * const server = createMcpServer({ catalog: toolCatalog, dispatch, scope, version, session, deadline });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { scope } = options;
  let loaded: ToolCatalog | undefined;
  const catalog = (): ToolCatalog => {
    loaded ??= typeof options.catalog === 'function' ? options.catalog() : options.catalog;
    return loaded;
  };
  const listTools = options.listTools ?? ((names: readonly string[]) => mcpToolsOf(catalog(), names));
  const server = new Server(
    { name: MCP_SERVER_NAME, version: options.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        `Tools of the External Tools Platform for tenant ${scope.tenant}. Each call returns a ToolResult: ` +
        'ok true with value, or ok false with error.code (docs/errors.md) and a message saying what to fix.',
    },
  );
  server.setRequestHandler(
    ListToolsRequestSchema,
    (): ListToolsResult => ({
      tools: listTools(scope.tools),
    }),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = request.params.name;
    const args = request.params.arguments ?? {};
    if (!catalog().has(tool)) {
      // Named against this server's own tools, never the registry's.
      const offered = scope.tools.filter((name) => catalog().has(name));
      // Loaded on this path only: `etp mcp` answers tools/list without the error normalizer.
      const { MAX_ECHOED_CHARS } =
        require('../../runtime/invocation') as typeof import('../../runtime/invocation');
      const { normalizeError } =
        require('../../runtime/normalize-error') as typeof import('../../runtime/normalize-error');
      const shown = tool.slice(0, MAX_ECHOED_CHARS);
      const unknown = new PlatformError(
        'unknown_tool',
        `Unknown tool "${shown}". This server offers: ${offered.join(', ')}`,
        {
          details: { offered },
        },
      );
      return toCallToolResult(failureResult(shown, 'mcp/0', normalizeError(shown, unknown), 0));
    }
    // The logical call, not the JSON-RPC id: a client retrying a tools/call may send a new id
    // (or, over stateless HTTP, a new request), and must still get the first call's outcome.
    // A client's idempotency key names it outright: no window, and the same arguments under
    // two keys are two calls.
    const key = request.params._meta?.[IDEMPOTENCY_META_KEY];
    const { runId, callId } = entryCallIdentity(
      'mcp',
      options.session,
      typeof key === 'string'
        ? `${tool}\n${IDEMPOTENCY_META_KEY}\n${key}`
        : logicalCallKey(tool, args, '', (options.now ?? Date.now)()),
    );
    const result = await options.dispatch(
      { tenant: scope.tenant, tool, args, runId, callId },
      options.deadline(),
      scope,
    );
    return toCallToolResult(result);
  });
  return server;
}
