/**
 * Arguments shared by the snapshot tools' schemas (zod/mini, no SDK: spec files
 * import this). Ids are checked by shape here and parsed by `ids.ts` in the
 * handler, both before any remote call.
 */
import * as z from 'zod/mini';
import { SNAPSHOT_ID_FORMS, SOURCE_ID_FORMS } from './ids';

/** A snapshot id (see `ids.ts`). */
export const snapshotIdArg = z
  .string()
  .check(
    z.minLength(5),
    z.maxLength(300),
    z.regex(/^(ebs|s3_inventory):/, `a snapshot id: ${SNAPSHOT_ID_FORMS}`),
    z.describe(`Snapshot id as list_snapshots returns it: ${SNAPSHOT_ID_FORMS}.`),
  );

/** A source id (see `ids.ts`). */
export const sourceIdArg = z
  .string()
  .check(
    z.minLength(5),
    z.maxLength(200),
    z.regex(/^(ebs|s3_inventory):/, `a source id: ${SOURCE_ID_FORMS}`),
    z.describe(`Source id: ${SOURCE_ID_FORMS}.`),
  );

/** An ISO-8601 date or date-time, inclusive lower bound. */
export const sinceArg = z.union(
  [
    z.iso.date('a date YYYY-MM-DD'),
    z.iso.datetime({ offset: true, error: 'an ISO-8601 date-time such as 2026-03-01T00:00:00Z' }),
  ],
  { error: 'Expected a date YYYY-MM-DD or an ISO-8601 date-time such as 2026-03-01T00:00:00Z' },
);

/** `since` as ms since 1970 (a date means its start, UTC). */
export function sinceMs(since: string): number {
  return Date.parse(since.length === 10 ? `${since}T00:00:00Z` : since);
}
