import { userInfo } from 'node:os';

/**
 * The `created_by` of rows the CLI writes: `etp-cli:<OS user>`, or
 * `etp-cli:unknown` where there is no user entry (some containers).
 */
export function cliCreatedBy(): string {
  try {
    return `etp-cli:${userInfo().username}`;
  } catch {
    return 'etp-cli:unknown';
  }
}
