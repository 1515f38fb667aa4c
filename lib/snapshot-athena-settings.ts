/**
 * The snapshot tools' Athena route settings as CDK props (docs/deploying.md,
 * "The snapshot tools' Athena route"; docs/snapshot-tools.md, "Athena route"):
 * checked at synth by the same rules the functions apply when they start
 * (functions/tools/snapshots/athena/settings.ts, `athenaRouteSettings`), so a bad
 * value fails `cdk synth` saying what is accepted, and handed to the function
 * of every tool that declares the route's grants as its environment
 * (`ETP_ATHENA_ROUTE`, `ETP_ATHENA_WORKGROUP`, `ETP_ATHENA_DATABASE`,
 * `ETP_ATHENA_MIN_REPORT_BYTES`). Names and a byte count: no secret.
 */
import { PlatformError } from '../functions/runtime/errors';
import type { ToolSpec } from '../functions/runtime/spec';
import { type AthenaRouteMode, athenaRouteSettings } from '../functions/tools/snapshots/athena/settings';
import { ATHENA_ROUTE_QUERY } from '../functions/tools/snapshots/iam';

/** The four settings; each left out takes the functions' default. */
export interface SnapshotAthenaProps {
  /** `auto` (Athena from `minReportBytes`, for ORC, and when the index fills), `off` or `always`. @default 'auto' */
  readonly mode?: AthenaRouteMode;
  /** Athena workgroup in the customer accounts, `etp-…` (CustomerAccessStack creates it). @default 'etp-snapshots' */
  readonly workGroup?: string;
  /** Glue database in the customer accounts, `etp_…` (CustomerAccessStack creates it). @default 'etp_snapshots' */
  readonly database?: string;
  /** Bytes of data files (both reports' manifests summed) from which a call goes to Athena. @default 2 GiB */
  readonly minReportBytes?: number;
}

const VARIABLES = {
  ETP_ATHENA_ROUTE: 'mode',
  ETP_ATHENA_WORKGROUP: 'workGroup',
  ETP_ATHENA_DATABASE: 'database',
  ETP_ATHENA_MIN_REPORT_BYTES: 'minReportBytes',
} as const satisfies Record<string, keyof SnapshotAthenaProps>;

/**
 * The environment of the route's functions: every setting, checked, defaults filled in.
 *
 * @param where - the props' name in the error (`snapshotAthena`).
 * @throws Error naming the prop, its value and what is accepted.
 */
export function snapshotAthenaEnvironment(
  props: SnapshotAthenaProps = {},
  where = 'snapshotAthena',
): Record<keyof typeof VARIABLES, string> {
  const given: Record<string, string> = {};
  for (const [variable, prop] of Object.entries(VARIABLES)) {
    const value = props[prop];
    if (value !== undefined) given[variable] = String(value);
  }
  try {
    const settings = athenaRouteSettings(given);
    return {
      ETP_ATHENA_ROUTE: settings.mode,
      ETP_ATHENA_WORKGROUP: settings.workGroup,
      ETP_ATHENA_DATABASE: settings.database,
      ETP_ATHENA_MIN_REPORT_BYTES: String(settings.minReportBytes),
    };
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    const variable = String(err.details?.setting) as keyof typeof VARIABLES;
    // The functions' message names the variable; at synth, the prop is what the operator wrote.
    throw new Error(`${where}.${VARIABLES[variable]} (${err.message.replace(/^Setting [A-Z_]+=/, '')})`);
  }
}

/** Whether a tool's function takes the route's settings: its spec carries the route's query grant. */
export function takesAthenaRoute(spec: Pick<ToolSpec, 'iam'>): boolean {
  return spec.iam.includes(ATHENA_ROUTE_QUERY);
}
