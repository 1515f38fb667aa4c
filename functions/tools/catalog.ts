/**
 * The one place a tool is registered: one line per tool. Everything that lists
 * tools — the dispatcher, the CDK functions, the file tools, `docs/tools.md`, the
 * CLI and the tests — reads {@link toolCatalog}. Spec files only for function
 * tools (no service client), so the dispatcher bundle stays small.
 */
import { fileTool, functionTool, ToolCatalog } from '../runtime/catalog';
import { atsAddNoteSpec } from './ats/add-note.meta';
import { atsGetCandidateSpec } from './ats/get-candidate.meta';
import { atsListCandidatesSpec } from './ats/list-candidates.meta';
import { cloudtrailCoverageSpec } from './aws/cloudtrail-coverage.meta';
import { computeOptimizerRecsSpec } from './aws/compute-optimizer-recs.meta';
import { costAnomaliesSpec } from './aws/cost-anomalies.meta';
import { costBreakdownSpec } from './aws/cost-breakdown.meta';
import { ebsInventorySpec } from './aws/ebs-inventory.meta';
import { ec2InventorySpec } from './aws/ec2-inventory.meta';
import { eipsAuditSpec } from './aws/eips-audit.meta';
import { iamAuditSpec } from './aws/iam-audit.meta';
import { natGatewaysAuditSpec } from './aws/nat-gateways-audit.meta';
import { orgAccountsSpec } from './aws/org-accounts.meta';
import { rdsInventorySpec } from './aws/rds-inventory.meta';
import { s3InventorySpec } from './aws/s3-inventory.meta';
import { securityGroupsAuditSpec } from './aws/security-groups-audit.meta';
import { crmGetCompanySpec } from './crm/get-company.meta';
import { crmListLeadsSpec } from './crm/list-leads.meta';
import { crmUpdateLeadSpec } from './crm/update-lead.meta';
import { editFileTool } from './files/edit-file';
import { finishTool } from './files/finish';
import { listFilesTool } from './files/list-files';
import { readFileTool } from './files/read-file';
import { writeFileTool } from './files/write-file';
import { githubCreateIssueSpec } from './github/create-issue.meta';
import { githubMergedPullsSpec } from './github/merged-pulls.meta';
import { githubOrgFactsSpec } from './github/org-facts.meta';
import { githubRecentChangesSpec } from './github/recent-changes.meta';
import { githubSecurityAlertsSpec } from './github/security-alerts.meta';
import { pagerdutyAddNoteSpec } from './pagerduty/add-note.meta';
import { pagerdutyIncidentSpec } from './pagerduty/incident.meta';
import { pagerdutyIncidentsSpec } from './pagerduty/incidents.meta';
import { pagerdutyOncallSpec } from './pagerduty/oncall.meta';
import { slackChannelHistorySpec } from './slack/channel-history.meta';
import { slackPostBlocksSpec } from './slack/post-blocks.meta';
import { slackPostMessageSpec } from './slack/post-message.meta';
import { slackPostThreadedSpec } from './slack/post-threaded.meta';
import { diffSnapshotsSpec } from './snapshots/diff-snapshots.meta';
import { inspectFindingSpec } from './snapshots/inspect-finding.meta';
import { listSnapshotsSpec } from './snapshots/list-snapshots.meta';
import { scanSnapshotsSpec } from './snapshots/scan-snapshots.meta';
import { snapshotStatsSpec } from './snapshots/snapshot-stats.meta';

/** Every registered tool. */
export const toolCatalog = new ToolCatalog([
  functionTool(ec2InventorySpec, 'aws/ec2-inventory'),
  functionTool(ebsInventorySpec, 'aws/ebs-inventory'),
  functionTool(costBreakdownSpec, 'aws/cost-breakdown'),
  functionTool(costAnomaliesSpec, 'aws/cost-anomalies'),
  functionTool(computeOptimizerRecsSpec, 'aws/compute-optimizer-recs'),
  functionTool(s3InventorySpec, 'aws/s3-inventory'),
  functionTool(iamAuditSpec, 'aws/iam-audit'),
  functionTool(securityGroupsAuditSpec, 'aws/security-groups-audit'),
  functionTool(cloudtrailCoverageSpec, 'aws/cloudtrail-coverage'),
  functionTool(natGatewaysAuditSpec, 'aws/nat-gateways-audit'),
  functionTool(eipsAuditSpec, 'aws/eips-audit'),
  functionTool(rdsInventorySpec, 'aws/rds-inventory'),
  functionTool(orgAccountsSpec, 'aws/org-accounts'),
  functionTool(slackPostMessageSpec, 'slack/post-message'),
  functionTool(slackPostBlocksSpec, 'slack/post-blocks'),
  functionTool(slackPostThreadedSpec, 'slack/post-threaded'),
  functionTool(slackChannelHistorySpec, 'slack/channel-history'),
  functionTool(githubMergedPullsSpec, 'github/merged-pulls'),
  functionTool(githubRecentChangesSpec, 'github/recent-changes'),
  functionTool(githubSecurityAlertsSpec, 'github/security-alerts'),
  functionTool(githubCreateIssueSpec, 'github/create-issue'),
  functionTool(githubOrgFactsSpec, 'github/org-facts'),
  functionTool(pagerdutyIncidentsSpec, 'pagerduty/incidents'),
  functionTool(pagerdutyIncidentSpec, 'pagerduty/incident'),
  functionTool(pagerdutyOncallSpec, 'pagerduty/oncall'),
  functionTool(pagerdutyAddNoteSpec, 'pagerduty/add-note'),
  functionTool(scanSnapshotsSpec, 'snapshots/scan-snapshots'),
  functionTool(listSnapshotsSpec, 'snapshots/list-snapshots'),
  functionTool(snapshotStatsSpec, 'snapshots/snapshot-stats'),
  functionTool(diffSnapshotsSpec, 'snapshots/diff-snapshots'),
  functionTool(inspectFindingSpec, 'snapshots/inspect-finding'),
  functionTool(crmListLeadsSpec, 'crm/list-leads'),
  functionTool(crmGetCompanySpec, 'crm/get-company'),
  functionTool(crmUpdateLeadSpec, 'crm/update-lead'),
  functionTool(atsListCandidatesSpec, 'ats/list-candidates'),
  functionTool(atsGetCandidateSpec, 'ats/get-candidate'),
  functionTool(atsAddNoteSpec, 'ats/add-note'),
  fileTool(finishTool),
  fileTool(readFileTool),
  fileTool(writeFileTool),
  fileTool(editFileTool),
  fileTool(listFilesTool),
]);
