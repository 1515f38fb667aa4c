import * as z from 'zod/mini';
import { builtOnce } from '../../../runtime/built-once';

/** An AWS region name (`eu-west-1`, `us-gov-west-1`). */
export const awsRegion = builtOnce(() =>
  z
    .string()
    .check(
      z.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region name, in lower case, such as eu-west-1'),
      z.describe('AWS region name, e.g. eu-west-1'),
    ),
);

/**
 * Most region names a `regions` list takes: our bound, above the regions AWS has
 * (about 36, "AWS Regions" in the General Reference), so a list of every one fits
 * and a runaway list is refused before any call.
 */
export const MAX_REGIONS = 40;

/** What `regions` accepts, as a sentence for messages. */
export const REGIONS_ACCEPTED = `"all" or a list of 1-${MAX_REGIONS} AWS region names such as ["eu-west-1"]`;

/** What `regions` accepts, with no default: 1 to {@link MAX_REGIONS} region names, or `"all"`. */
export const regionsList = builtOnce(() =>
  z.union(
    [
      z.literal('all'),
      z
        .array(awsRegion())
        .check(
          z.minLength(1, 'an empty list: name at least one region, or "all"'),
          z.maxLength(MAX_REGIONS, `more regions than the ${MAX_REGIONS} a list takes`),
        ),
    ],
    // A union's own message is a bare "Invalid input"; a list's items keep their own messages.
    { error: `Expected ${REGIONS_ACCEPTED}` },
  ),
);

/**
 * The `regions` argument shared by regional tools: a list of region names, or
 * `"all"` for every region enabled in the account. Omitted: the tenant's region.
 */
export const regionsArg = builtOnce(() =>
  z
    .optional(regionsList())
    .check(
      z.describe(
        'Region names, or "all" for every region enabled in the account. Default: the tenant\'s region.',
      ),
    ),
);

/** `topN`: how many items a bounded summary lists. */
export const topNArg = (fallback: number) =>
  z
    ._default(z.int().check(z.minimum(1), z.maximum(100)), fallback)
    .check(z.describe(`How many items to list in full (1-100, default ${fallback}).`));

/**
 * A calendar day `YYYY-MM-DD` (UTC) that exists (no 2026-02-30); periods built
 * from two of these are inclusive at both ends. Advertised as JSON Schema
 * `format: date`.
 */
export const calendarDateArg = builtOnce(() => z.iso.date('a calendar date YYYY-MM-DD, such as 2026-03-31'));
