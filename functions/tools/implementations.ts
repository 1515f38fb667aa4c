import * as path from 'node:path';
import type { Tool } from '../runtime/spec';

/**
 * Where each tool's implementation lives, relative to this folder, without the
 * `.ts` extension. The module exports the tool (`…Tool`) and, for
 * `placement: 'function'`, its Lambda `handler`. The CDK bundles these files;
 * the CLI and tests load them lazily, so listing tools loads no service client.
 */
export const TOOL_MODULES: Readonly<Record<string, string>> = {
  aws_ec2_inventory: 'aws/ec2-inventory',
  aws_ebs_inventory: 'aws/ebs-inventory',
  aws_cost_breakdown: 'aws/cost-breakdown',
  aws_cost_anomalies: 'aws/cost-anomalies',
  aws_compute_optimizer_recs: 'aws/compute-optimizer-recs',
  aws_s3_inventory: 'aws/s3-inventory',
  aws_iam_audit: 'aws/iam-audit',
  aws_security_groups_audit: 'aws/security-groups-audit',
  aws_cloudtrail_coverage: 'aws/cloudtrail-coverage',
  aws_nat_gateways_audit: 'aws/nat-gateways-audit',
  aws_eips_audit: 'aws/eips-audit',
  aws_rds_inventory: 'aws/rds-inventory',
  slack_post_message: 'slack/post-message',
  finish: 'files/finish',
};

/** Absolute path of a tool's implementation file (the Lambda entry). */
export function toolEntryPath(name: string): string {
  const module = TOOL_MODULES[name];
  if (!module) throw new Error(`No implementation module is listed for tool "${name}"`);
  return path.join(__dirname, `${module}.ts`);
}

/**
 * Loads a tool's implementation (spec + handler).
 *
 * @throws Error when no module is listed or it exports no tool of that name.
 */
export async function loadTool(name: string): Promise<Tool> {
  const module = TOOL_MODULES[name];
  if (!module) throw new Error(`No implementation module is listed for tool "${name}"`);
  // require, not import(): this is a CommonJS module and Jest's CommonJS runtime has no import().
  const moduleExports = require(`./${module}`) as Record<string, unknown>;
  const tool = Object.values(moduleExports).find(
    (value): value is Tool =>
      typeof value === 'object' &&
      value !== null &&
      (value as Tool).name === name &&
      typeof (value as Tool).handler === 'function',
  );
  if (!tool) throw new Error(`Module ${module} exports no tool named "${name}"`);
  return tool;
}
