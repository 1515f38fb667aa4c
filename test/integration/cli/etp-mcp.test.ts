import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type LocalSlack, startSlackServer } from '../../helpers/slack-server';

/**
 * `etp mcp` as an MCP client runs it: the real `bin/etp.js` started as a child
 * process by the MCP SDK's own stdio client, which speaks the protocol on its
 * stdin/stdout. The one successful call reaches a local Slack Web API on
 * 127.0.0.1 with the embedded store's `slack_default` (ETP_SLACK_DEFAULT), as a
 * developer's local setup would.
 */
const BIN = path.join(__dirname, '../../../bin/etp.js');
const PROFILE_TOOLS = ['aws_s3_inventory', 'slack_post_message'];

let slack: LocalSlack;
let client: Client;
let transport: StdioClientTransport;
let stderr = '';

beforeAll(async () => {
  slack = await startSlackServer();
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--tenant', 'default', '--tools', PROFILE_TOOLS.join(',')],
    // Only what the server needs: no AWS credentials or settings of this machine reach it.
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'eu-west-1',
      AWS_CONFIG_FILE: path.join(__dirname, 'no-such-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(__dirname, 'no-such-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      SLACK_API_URL: slack.apiUrl,
      ETP_SLACK_DEFAULT: JSON.stringify({ bot_token: slack.botToken }),
      // Logs at every level: they must all go to stderr, never into the protocol on stdout.
      POWERTOOLS_LOG_LEVEL: 'INFO',
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  client = new Client({ name: 'etp-mcp-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client.close();
  await slack.stop();
});

describe('etp mcp over stdio, driven by the MCP SDK client', () => {
  it('initializes with the server name and the tools capability', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'external-tools-platform' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    expect(stderr).toContain('etp mcp: serving 2 tools for tenant default');
  });

  it("lists exactly the profile's tools, with output schema and annotations", async () => {
    // Act
    const { tools } = await client.listTools();

    // Assess
    expect(tools.map((tool) => tool.name).sort()).toEqual(PROFILE_TOOLS);
    const post = tools.find((tool) => tool.name === 'slack_post_message');
    expect(post?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(post?.outputSchema).toMatchObject({ type: 'object' });
    expect(post?.inputSchema).toMatchObject({ type: 'object', required: ['channel', 'text'] });
  });

  it('calls a tool: the ToolResult as structured content and as text', async () => {
    // Act
    const result = await client.callTool({
      name: 'slack_post_message',
      arguments: { channel: '#aws-pulse', text: 'posted through MCP' },
    });

    // Assess
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({
      ok: true,
      tool: 'slack_post_message',
      callId: 'mcp/0',
      value: { via: 'bot_token', channel: 'C0AWSPULSE' },
    });
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual(
      result.structuredContent,
    );
    expect(slack.messages.map((message) => message.text)).toEqual(['posted through MCP']);
    expect(JSON.stringify(result)).not.toContain(slack.botToken);
    // The dispatcher's Powertools logs went to stderr (stdout carried only the protocol), redacted.
    expect(stderr).toMatch(/"message": ?"tool result"/);
    expect(stderr).not.toContain(slack.botToken);
  });

  it('answers invalid arguments with an isError result saying what is accepted, calling nothing', async () => {
    // Act
    const result = await client.callTool({
      name: 'slack_post_message',
      arguments: { channel: '#aws-pulse' },
    });

    // Assess
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', message: expect.stringContaining('text') },
    });
    expect(slack.messages).toHaveLength(1);
  });

  it("answers a tool outside the profile's whitelist with tool_not_allowed, not a protocol error", async () => {
    // Act
    const result = await client.callTool({
      name: 'aws_ec2_inventory',
      arguments: { regions: ['eu-west-1'] },
    });

    // Assess
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      ok: false,
      error: {
        code: 'tool_not_allowed',
        message: expect.stringContaining('Allowed: aws_s3_inventory, slack_post_message'),
      },
    });
  });

  it('answers an unregistered tool with unknown_tool, listing the registered names', async () => {
    // Act
    const result = await client.callTool({ name: 'constructor', arguments: {} });

    // Assess
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ ok: false, error: { code: 'unknown_tool' } });
  });
});
