// The baseline of the CLI start-up bench (bench/startup.ts): the smallest MCP server on the same
// SDK as `etp mcp` (its low-level Server over stdio), serving the tools listed in the JSON file
// given as its argument: the very tools/list result `etp mcp` returned, so both send the same
// schemas. Plain JavaScript on purpose: nothing but Node and the SDK loads.
const { readFileSync } = require('node:fs');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const tools = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const server = new Server({ name: 'minimal', version: '0.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
void server.connect(new StdioServerTransport());
