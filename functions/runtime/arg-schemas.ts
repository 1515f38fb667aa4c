/**
 * Argument schemas several tool families share (zod/mini, as the specs are written).
 */
import * as z from 'zod/mini';

/**
 * An instant with its time zone: an ISO 8601 date-time with an offset or `Z` (RFC 3339), such as
 * `2026-03-31T08:00:00Z`; `what` is its description in the tool's schema.
 */
export const isoTimeArg = (what: string) =>
  z.iso
    .datetime({ offset: true, error: 'an ISO 8601 date-time with a time zone, such as 2026-03-31T08:00:00Z' })
    .check(z.describe(what));
