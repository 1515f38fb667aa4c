/**
 * Arguments shared by the snapshot tools' schemas (zod/mini, no SDK: spec files
 * import this). Ids are parsed whole by `ids.ts` while the args are validated, so
 * a malformed one is `invalid_args` from the dispatcher, before the tool's
 * function is invoked; handlers parse them again into their parts.
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { parseSnapshotId, parseSourceId, SNAPSHOT_ID_FORMS, SOURCE_ID_FORMS } from './ids';

/** A zod check that runs an id parser and reports its message as the violation. */
function parsedBy(parse: (id: string) => unknown) {
  return z.superRefine<string>((value, ctx) => {
    try {
      parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message, input: value });
    }
  });
}

/** A snapshot id (see `ids.ts`). */
export const snapshotIdArg = builtOnce(() =>
  z
    .string()
    .check(
      z.minLength(5),
      z.maxLength(300),
      z.regex(/^(ebs|s3_inventory):/, `a snapshot id: ${SNAPSHOT_ID_FORMS}`),
      parsedBy(parseSnapshotId),
      z.describe(`Snapshot id as list_snapshots returns it: ${SNAPSHOT_ID_FORMS}.`),
    ),
);

/** A source id (see `ids.ts`). */
export const sourceIdArg = builtOnce(() =>
  z
    .string()
    .check(
      z.minLength(5),
      z.maxLength(200),
      z.regex(/^(ebs|s3_inventory):/, `a source id: ${SOURCE_ID_FORMS}`),
      parsedBy(parseSourceId),
      z.describe(`Source id: ${SOURCE_ID_FORMS}.`),
    ),
);

/** How far past this machine's clock a `since` may lie (clock skew between the caller and Lambda), in ms. */
const SINCE_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * An ISO-8601 date or date-time, inclusive lower bound, not in the future: a
 * `since` after now can only select nothing, so it is an argument to correct,
 * refused before any remote call.
 */
export const sinceArg = builtOnce(() =>
  z
    .union(
      [
        z.iso.date('a date YYYY-MM-DD'),
        z.iso.datetime({ offset: true, error: 'an ISO-8601 date-time such as 2026-03-01T00:00:00Z' }),
      ],
      { error: 'Expected a date YYYY-MM-DD or an ISO-8601 date-time such as 2026-03-01T00:00:00Z' },
    )
    .check(
      z.refine((since) => sinceMs(since) <= Date.now() + SINCE_CLOCK_SKEW_MS, {
        error: 'is in the future: give a date or date-time at or before now',
      }),
    ),
);

/** `since` as ms since 1970 (a date means its start, UTC). */
export function sinceMs(since: string): number {
  return Date.parse(since.length === 10 ? `${since}T00:00:00Z` : since);
}
