import { existsSync } from 'node:fs';
import { toJsonSchema } from '../../../functions/runtime/spec';
import { FILE_TOOLS, toolCatalog } from '../../../functions/tools/catalog';
import { loadTool, TOOL_MODULES, toolEntryPath } from '../../../functions/tools/implementations';

describe('the tool catalog', () => {
  it('registers the twelve AWS tools, the Slack tool and finish', () => {
    expect(toolCatalog.names()).toEqual([
      'aws_cloudtrail_coverage',
      'aws_compute_optimizer_recs',
      'aws_cost_anomalies',
      'aws_cost_breakdown',
      'aws_ebs_inventory',
      'aws_ec2_inventory',
      'aws_eips_audit',
      'aws_iam_audit',
      'aws_nat_gateways_audit',
      'aws_rds_inventory',
      'aws_s3_inventory',
      'aws_security_groups_audit',
      'finish',
      'slack_post_message',
    ]);
    expect(FILE_TOOLS).toEqual(['finish']);
  });

  it('lists an implementation module for every tool and no other', () => {
    expect(Object.keys(TOOL_MODULES).sort()).toEqual(toolCatalog.names());
  });

  it.each(toolCatalog.names())('loads %s with the very spec the catalog holds', async (name) => {
    // Act
    const tool = await loadTool(name);

    // Assess
    const spec = toolCatalog.get(name);
    expect(existsSync(toolEntryPath(name))).toBe(true);
    expect(tool.inputSchema).toBe(spec.inputSchema);
    expect(tool.iam).toEqual(spec.iam);
    expect(toJsonSchema(tool.inputSchema).additionalProperties).toBe(false);
  });

  it.each(toolCatalog.list().filter((spec) => spec.tags.includes('aws')))(
    '$name needs the aws_default secret and has no side effects',
    (spec) => {
      expect(spec.requiresSecrets).toEqual(['aws_default']);
      expect(spec.sideEffects).toBe('none');
      expect(spec.tags).toContain('read_only');
    },
  );
});
