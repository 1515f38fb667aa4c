import { randomUUID } from 'node:crypto';
import { type Readable, Transform, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import type { ProfileScope } from '../../functions/dispatcher/access';
import type { Dispatch } from '../../functions/dispatcher/dispatch';
import {
  errorResponseOf,
  JSON_RPC_ERROR,
  type JsonRpcRefusal,
  refusalOfBody,
} from '../../functions/dispatcher/mcp/json-rpc-guard';
import { createMcpServer } from '../../functions/dispatcher/mcp/server';
import { deadlineIn } from '../../functions/runtime/deadline';
import { InvalidArgsError } from '../../functions/runtime/errors';
import { assertIdentifier, TENANT_ID } from '../../functions/runtime/ids';
import { version } from '../../package.json';
import type { CliIo, CliRun } from './io';
import { precomputedMcpTools } from './mcp-tools';
import { secretRefsTable } from './options';
import type { ToolSelectionOptions } from './tool-selection';

/** The variable naming the tenant of `etp mcp` when `--tenant` is not given. */
export const MCP_TENANT_ENV = 'ETP_TENANT';
/** The variable listing the tools of `etp mcp` (comma-separated) when `--tools` is not given. */
export const MCP_TOOLS_ENV = 'ETP_MCP_TOOLS';
/** The access profile name of an `etp mcp` server, in logs and error messages. */
export const MCP_LOCAL_PROFILE = 'etp_mcp';

interface McpOptions extends ToolSelectionOptions {
  readonly tenant?: string;
  readonly table?: string;
}

/**
 * The access profile of `etp mcp`, from the command line (the operator's
 * configuration of the client, never the model's input): the tenant from
 * `--tenant` or `ETP_TENANT`; the tools from `--tools`, `--scenario/--level`,
 * `ETP_MCP_TOOLS`, else every read-only tool (`sideEffects: none`, file tools
 * excluded: they need a run's workspace). Write tools are served only when named.
 *
 * @throws InvalidArgsError (usage error) when no tenant is given or it is malformed.
 */
export function mcpProfile(options: McpOptions, env: NodeJS.ProcessEnv): ProfileScope {
  const tenant = options.tenant ?? env[MCP_TENANT_ENV];
  if (tenant === undefined || tenant === '') {
    throw new InvalidArgsError(`etp mcp needs a tenant: pass --tenant <tenant> or set ${MCP_TENANT_ENV}`);
  }
  assertIdentifier(TENANT_ID, tenant, '--tenant');
  const fromEnv =
    options.tools === undefined && options.scenario === undefined ? env[MCP_TOOLS_ENV] : undefined;
  const tools = options.tools ?? (fromEnv || undefined);
  if (tools === undefined && options.scenario === undefined && options.level === undefined) {
    // The default needs no catalog: the precomputed list says what each tool is (bin/cli/mcp-tools.ts).
    const names = precomputedMcpTools()
      .filter((entry) => entry.sideEffects === 'none' && !entry.fileTool)
      .map((entry) => entry.tool.name);
    return { profile: MCP_LOCAL_PROFILE, tenant, tools: names };
  }
  const { selectTools } = require('./tool-selection') as typeof import('./tool-selection');
  const specs = selectTools({ ...options, tools }, () => []);
  return { profile: MCP_LOCAL_PROFILE, tenant, tools: specs.map((spec) => spec.name) };
}

/**
 * Keeps the process's stdout for the MCP protocol alone (MCP specification,
 * "Transports", stdio: the server must not write anything to stdout that is not
 * an MCP message): returns a stream writing to the real stdout, and sends every
 * other write to `process.stdout` — Powertools logs, a stray console.log — to stderr.
 */
export function reserveStdoutForProtocol(): Writable {
  const protocolWrite = process.stdout.write.bind(process.stdout);
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      protocolWrite(chunk, callback);
    },
  });
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return protocol;
}

/**
 * Most bytes of one stdio line: 6 MiB, the AWS Lambda quota for a synchronous
 * invocation's payload (Lambda Developer Guide, "Lambda quotas": 6 MB request),
 * so stdio accepts what the deployed server would.
 */
export const MAX_LINE_BYTES = 6 * 1024 * 1024;

/**
 * The lines of an MCP stdio stream (MCP specification, "Transports", stdio: one
 * JSON-RPC message per line, newline-delimited, no embedded newline) that pass
 * the checks an HTTP request gets ({@link refusalOfBody}): each refused line is
 * handed to `refuse` and never reaches the SDK; a blank (whitespace-only) line
 * is skipped, as a keep-alive or a stray `\r\n` between messages; a trailing
 * `\r` is dropped; a line over {@link MAX_LINE_BYTES} is refused (-32600, id null)
 * and dropped up to its newline, never held whole. Accepted lines come out whole,
 * each ending in `\n`.
 */
export function guardedLines(
  input: NodeJS.ReadableStream,
  refuse: (refusal: JsonRpcRefusal) => void,
): Readable {
  // A character split across two chunks is joined before it is read.
  const decoder = new StringDecoder('utf8');
  let pending = '';
  // Inside a line already refused as too long: dropped up to its newline.
  let skipping = false;
  const tooLong = () =>
    refuse({
      code: JSON_RPC_ERROR.invalidRequest,
      message: `Invalid Request: a message is at most ${MAX_LINE_BYTES} bytes on one line (Lambda's invocation payload limit, as the deployed server); this line is longer`,
      id: null,
    });
  const guard = (line: string, push: (text: string) => void) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() === '') return;
    if (Buffer.byteLength(text) > MAX_LINE_BYTES) return tooLong();
    const checked = refusalOfBody(text);
    if (checked.refusal) refuse(checked.refusal);
    else push(`${checked.body}\n`);
  };
  const lines = new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let end = pending.indexOf('\n');
      while (end >= 0) {
        if (skipping) skipping = false;
        else guard(pending.slice(0, end), (text) => this.push(text));
        pending = pending.slice(end + 1);
        end = pending.indexOf('\n');
      }
      if (skipping) pending = '';
      else if (pending.length > MAX_LINE_BYTES) {
        tooLong();
        skipping = true;
        pending = '';
      }
      callback();
    },
    flush(callback) {
      pending += decoder.end();
      if (!skipping) guard(pending, (text) => this.push(text));
      pending = '';
      callback();
    },
  });
  return input.pipe(lines);
}

/** What {@link serveMcp} serves on. */
export interface McpStreams {
  readonly input: NodeJS.ReadableStream;
  readonly output: Writable;
}

/**
 * Serves the tools of `scope` over stdio until the input ends: calls run in this
 * process through the dispatcher core (`createLocalDispatcher`), with the
 * secrets the CLI uses (`--table` / `ETP_SECRET_REFS_TABLE`, else the embedded store).
 *
 * @returns once the client has closed the connection.
 */
export async function serveMcp(
  scope: ProfileScope,
  streams: McpStreams,
  table: string | undefined,
): Promise<void> {
  // Calls still running when the input ends are answered before the server closes: a client
  // may write its last request and close stdin (`printf … | etp mcp`), and expects every answer.
  const inFlight = new Set<Promise<unknown>>();
  const firstCall = dispatchOnFirstCall(table);
  const dispatch: Dispatch = (envelope, deadline, callScope) => {
    const call = firstCall(envelope, deadline, callScope);
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call)).catch(() => {});
    return call;
  };
  const listed = new Map(precomputedMcpTools().map((entry) => [entry.tool.name, entry.tool]));
  const server = createMcpServer({
    catalog: catalog,
    listTools: (names) => names.flatMap((name) => listed.get(name) ?? []),
    dispatch,
    scope,
    version,
    session: randomUUID(),
    deadline: () => deadlineIn(localDispatcher().LOCAL_CALL_BUDGET_MS),
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  // Every line passes the same JSON-RPC checks as a request over HTTP (mcp/json-rpc-guard.ts)
  // before the SDK reads it: -32700 for a line that is not JSON, -32600 for one that is not a
  // JSON-RPC 2.0 message, -32602 for tools/call or tools/list params the server refuses (no
  // answer at all when the message is a notification).
  const reply = (response: Record<string, unknown>) => streams.output.write(`${JSON.stringify(response)}\n`);
  // A notification is never answered (JSON-RPC 2.0, "Notification"), however wrong its params.
  const guarded = guardedLines(streams.input, (refusal) => {
    if (!refusal.notification) reply(errorResponseOf(refusal));
  });
  // The SDK's stdio transport takes Node's process stream types; any readable/writable pair works.
  const transport = new StdioServerTransport(
    guarded as unknown as typeof process.stdin,
    streams.output as typeof process.stdout,
  );
  // What the guard let through and the SDK still cannot read (none is known) gets an answer too.
  transport.onerror = () =>
    reply(
      errorResponseOf({
        code: JSON_RPC_ERROR.invalidRequest,
        message: 'Invalid Request: not a JSON-RPC 2.0 message',
        id: null,
      }),
    );
  await server.connect(transport);
  guarded.once('end', async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    // The SDK writes a call's answer on the turn after its dispatch settles.
    await new Promise((resolve) => setImmediate(resolve));
    await server.close();
  });
  await closed;
}

/**
 * The local dispatcher, built at the first `tools/call`: an MCP client's
 * `initialize` and `tools/list` need only the catalog, and the local run's modules
 * (the scenarios, the dispatcher core, the SDK clients of local runs) take longer
 * to load than everything `tools/list` needs (`npm run bench`, "CLI start-up").
 */
function dispatchOnFirstCall(table: string | undefined): Dispatch {
  let dispatch: Dispatch | undefined;
  return (envelope, deadline, scope) => {
    if (!dispatch) {
      const { createLocalDispatcher, localSecretReferences } = localDispatcher();
      const { loadScenarios } =
        require('../../lib/scenarios/loader') as typeof import('../../lib/scenarios/loader');
      dispatch = createLocalDispatcher({
        references: localSecretReferences(table),
        scenarios: loadScenarios(catalog()),
        requireLevel: false,
      });
    }
    return dispatch(envelope, deadline, scope);
  };
}

/** The tool catalog, loaded at the first `tools/call` (or by `--tools`/`--scenario`). */
function catalog(): typeof import('../../functions/tools/catalog').toolCatalog {
  return (require('../../functions/tools/catalog') as typeof import('../../functions/tools/catalog'))
    .toolCatalog;
}

/** The local dispatcher's module, loaded on first use. */
function localDispatcher(): typeof import('../local/local-dispatcher') {
  return require('../local/local-dispatcher') as typeof import('../local/local-dispatcher');
}

/** `etp mcp`: the registry served to an MCP client over stdio (docs/entry-points.md, "MCP"). */
export function registerMcpCommand(program: Command, run: CliRun): void {
  program
    .command('mcp')
    .description('Serve the tools to an MCP client over stdio (stdout is the protocol; logs go to stderr)')
    .option('--tenant <tenant>', `tenant whose secrets the tools use (default: $${MCP_TENANT_ENV})`)
    .option(
      '--tools <names>',
      `tools to serve, comma-separated (default: $${MCP_TOOLS_ENV}, else every read-only tool)`,
    )
    .option('--scenario <scenario>', "serve a scenario level's tools (with --level)")
    .option('--level <level>', 'level of --scenario')
    .option(
      '--table <name>',
      'secret-reference table (default: $ETP_SECRET_REFS_TABLE, else the embedded store)',
    )
    .action(async (options: McpOptions) => {
      const scope = mcpProfile(options, run.io.env);
      const output = reserveStdoutForProtocol();
      announce(run.io, scope);
      await serveMcp(scope, { input: process.stdin, output }, secretRefsTable(options.table, run.io.env));
    });
}

function announce(io: CliIo, scope: ProfileScope): void {
  io.err(
    `etp mcp: serving ${scope.tools.length} tool${scope.tools.length === 1 ? '' : 's'} for tenant ${scope.tenant} on stdio: ${scope.tools.join(', ')}\n`,
  );
}
