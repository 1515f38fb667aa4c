import { ToolRegistry } from '../runtime/registry';
import type { ToolSpec } from '../runtime/spec';
import { cloudtrailCoverageSpec } from './aws/cloudtrail-coverage.spec';
import { computeOptimizerRecsSpec } from './aws/compute-optimizer-recs.spec';
import { costAnomaliesSpec } from './aws/cost-anomalies.spec';
import { costBreakdownSpec } from './aws/cost-breakdown.spec';
import { ebsInventorySpec } from './aws/ebs-inventory.spec';
import { ec2InventorySpec } from './aws/ec2-inventory.spec';
import { eipsAuditSpec } from './aws/eips-audit.spec';
import { iamAuditSpec } from './aws/iam-audit.spec';
import { natGatewaysAuditSpec } from './aws/nat-gateways-audit.spec';
import { rdsInventorySpec } from './aws/rds-inventory.spec';
import { s3InventorySpec } from './aws/s3-inventory.spec';
import { securityGroupsAuditSpec } from './aws/security-groups-audit.spec';
import { finishSpec } from './files/finish.spec';
import { slackPostMessageSpec } from './slack/post-message.meta';

/**
 * Every registered tool's spec: the one registry the dispatcher, the CLI, the
 * CDK stack and the docs read. Spec files only, no service client.
 */
export const toolCatalog = new ToolRegistry<ToolSpec>([
  ec2InventorySpec,
  ebsInventorySpec,
  costBreakdownSpec,
  costAnomaliesSpec,
  computeOptimizerRecsSpec,
  s3InventorySpec,
  iamAuditSpec,
  securityGroupsAuditSpec,
  cloudtrailCoverageSpec,
  natGatewaysAuditSpec,
  eipsAuditSpec,
  rdsInventorySpec,
  slackPostMessageSpec,
  finishSpec,
]);

/** Names of the file tools, always allowed at every level (DESIGN.md, "dispatcher"). */
export const FILE_TOOLS: readonly string[] = toolCatalog
  .list()
  .filter((spec) => spec.tags.includes('file'))
  .map((spec) => spec.name);
