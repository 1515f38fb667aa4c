import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { elsewhere, fencedBlocks, README_PATH_PLACEHOLDER, ROOT, SYSTEM_NODE, userEnv } from './readme';

/**
 * The README's MCP client config, started as an MCP client starts it: the
 * command and args exactly as written (the clone's path filled in), from another
 * directory, with the system's Node first on PATH, by the MCP SDK's own client.
 */
interface ServerConfig {
  readonly command: string;
  readonly args: string[];
  readonly env?: Record<string, string>;
}

/** The README's `mcpServers` block, with the clone's path where it says /path/to/…. */
function readmeServer(): ServerConfig {
  const block = fencedBlocks('json').find((text) => text.includes('"mcpServers"'));
  if (!block) throw new Error('README.md has no mcpServers block');
  const config = JSON.parse(block.replaceAll(README_PATH_PLACEHOLDER, ROOT)) as {
    mcpServers: Record<string, ServerConfig>;
  };
  const [server] = Object.values(config.mcpServers);
  if (!server) throw new Error('README.md mcpServers is empty');
  return server;
}

/** The tools a client lists from `server`, started in `cwd`. */
async function listedTools(server: ServerConfig, cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd,
    env: userEnv(server.env) as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'newcomer-mcp-client', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe("the README's MCP client config", () => {
  const server = readmeServer();
  const served = (server.args[server.args.indexOf('--tools') + 1] ?? '').split(',').sort();

  it('starts from another directory and lists the tools it names', async () => {
    // Act
    const tools = await listedTools(server, elsewhere());

    // Assess
    expect(served.length).toBeGreaterThan(0);
    expect(tools).toEqual(served);
  });

  it('starts with "command": "node" too, when PATH\'s node is the system\'s older Node', async () => {
    // Prepare: this machine's system Node, older than the project's.
    const version = SYSTEM_NODE
      ? execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim()
      : 'v0';
    expect(SYSTEM_NODE && Number(version.slice(1).split('.')[0]) < 24 ? 'older' : version).toBe('older');

    // Act
    const tools = await listedTools({ ...server, command: 'node' }, elsewhere());

    // Assess
    expect(tools).toEqual(served);
  });
});
