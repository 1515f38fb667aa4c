import { InvalidArgsError } from '../../functions/runtime/errors';
import type { GeneratedFile } from './aws-tool-template';
import type { ToolNames } from './tool-names';

/**
 * The files of a new REST connector tool. Not written yet: the REST connector
 * framework (functions/runtime/http/ connectors) is not in this branch.
 *
 * @throws InvalidArgsError always, saying so.
 */
export function restToolFiles(names: ToolNames): GeneratedFile[] {
  throw new InvalidArgsError(
    `--kind rest (${names.tool}): the REST connector framework is not in this build yet; use --kind aws or --kind file`,
  );
}
