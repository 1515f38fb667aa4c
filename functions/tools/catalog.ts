import { ToolRegistry } from '../runtime/registry';
import type { ToolSpec } from '../runtime/spec';
import { ec2InventorySpec } from './aws/ec2-inventory.spec';
import { finishSpec } from './files/finish.spec';
import { slackPostMessageSpec } from './slack/post-message.spec';

/**
 * Every registered tool's spec: the one registry the dispatcher, the CLI, the
 * CDK stack and the docs read. Spec files only, no service client.
 */
export const toolCatalog = new ToolRegistry<ToolSpec>([ec2InventorySpec, slackPostMessageSpec, finishSpec]);

/** Names of the file tools, always allowed at every level (DESIGN.md, "dispatcher"). */
export const FILE_TOOLS: readonly string[] = toolCatalog
  .list()
  .filter((spec) => spec.tags.includes('file'))
  .map((spec) => spec.name);
