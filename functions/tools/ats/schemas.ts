/**
 * Argument schemas and settings shared by the ATS tools' spec files (zod/mini, no client).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { ATS_SECRET } from './secret';

/** Most candidates one `ats_list_candidates` call returns. */
export const CANDIDATES_MAX_LIMIT = 500;

/** A candidate id: Greenhouse's numeric ids, Lever's opportunity UUIDs. */
export const candidateIdArg = builtOnce(() =>
  z.string().check(
    z.regex(/^(?:\d{1,20}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/, {
      error:
        'a Greenhouse candidate id (digits) or a Lever opportunity id (a UUID), as ats_list_candidates returns it',
    }),
    z.describe('The candidate id, as ats_list_candidates returns it.'),
  ),
);

/** Settings every ATS tool shares. */
export const ATS_SETTINGS = {
  service: 'ats',
  requiresSecrets: [ATS_SECRET],
  iam: [],
} as const;
