import { mcpProfile } from '../../../bin/cli/mcp';
import { toolCatalog } from '../../../functions/tools/catalog';
import { findScenario, loadScenarios } from '../../../lib/scenarios/loader';
import { etp } from './run-etp';

describe('etp tools schema', () => {
  it('prints the tools in the format asked, selected by --tools', async () => {
    // Act
    const outcome = await etp([
      'tools',
      'schema',
      '--format',
      'anthropic',
      '--tools',
      'aws_iam_audit,finish',
    ]);

    // Assess
    expect(outcome.code).toBe(0);
    const tools = JSON.parse(outcome.out) as { name: string; input_schema: { type: string } }[];
    expect(tools.map((tool) => tool.name)).toEqual(['aws_iam_audit', 'finish']);
    expect(tools[0]?.input_schema.type).toBe('object');
  });

  it("selects a level's tools and the file tools with --scenario/--level", async () => {
    // Act
    const outcome = await etp([
      'tools',
      'schema',
      '--format',
      'mcp',
      '--scenario',
      'aws_pulse',
      '--level',
      'collect',
    ]);

    // Assess
    const listed = JSON.parse(outcome.out) as { tools: { name: string }[] };
    const collect = findScenario(loadScenarios(toolCatalog), 'aws_pulse').levels.find(
      (l) => l.name === 'collect',
    );
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(
      [...(collect?.intra_tools ?? []), ...toolCatalog.fileToolNames()].sort(),
    );
  });

  it('exits 2 saying how to select fewer when a Bedrock action group cannot hold the selection', async () => {
    // Act
    const outcome = await etp(['tools', 'schema', '--format', 'bedrock-agent']);

    // Assess
    expect(outcome).toEqual({
      code: 2,
      out: '',
      err: expect.stringContaining(
        `at most 11 functions; ${toolCatalog.names().length} tools were selected. Select fewer with --tools`,
      ),
    });
  });

  it('exits 2 for an unknown format, listing the formats', async () => {
    // Act
    const outcome = await etp(['tools', 'schema', '--format', 'gemini']);

    // Assess
    expect(outcome.code).toBe(2);
    expect(outcome.err).toContain(
      'mcp, bedrock-agent, bedrock-agent-openapi, agentcore, converse, openai, anthropic',
    );
  });
});

describe('etp mcp profile', () => {
  it('serves every read-only tool by default, and needs a tenant', () => {
    // Act
    const profile = mcpProfile({}, { ETP_TENANT: 'acme' });

    // Assess
    expect(profile.tenant).toBe('acme');
    expect(profile.tools).toEqual(
      toolCatalog
        .list()
        // File tools work on a run's workspace: an MCP client has no run.
        .filter((spec) => spec.sideEffects === 'none' && !toolCatalog.isFileTool(spec.name))
        .map((spec) => spec.name),
    );
    expect(profile.tools).not.toContain('slack_post_message');
    expect(() => mcpProfile({}, {})).toThrow(/needs a tenant: pass --tenant/);
    expect(() => mcpProfile({ tenant: 'bad tenant' }, {})).toThrow(
      /--tenant "bad tenant" is not a tenant id/,
    );
  });

  it('takes the tools from --tools, else ETP_MCP_TOOLS', () => {
    expect(mcpProfile({ tenant: 'acme', tools: 'slack_post_message' }, {}).tools).toEqual([
      'slack_post_message',
    ]);
    expect(mcpProfile({ tenant: 'acme' }, { ETP_MCP_TOOLS: 'aws_iam_audit' }).tools).toEqual([
      'aws_iam_audit',
    ]);
    expect(() => mcpProfile({ tenant: 'acme', tools: 'aws_ec2_inventry' }, {})).toThrow(/aws_ec2_inventory/);
  });
});
