import * as z from 'zod/mini';
import { isoTimeArg } from '../../runtime/arg-schemas';
import { defineToolSpec } from '../../runtime/spec';
import { ATS_SETTINGS, CANDIDATES_MAX_LIMIT } from './schemas';

/** `ats_list_candidates`: candidates by job, stage and window. */
export const atsListCandidatesSpec = defineToolSpec({
  name: 'ats_list_candidates',
  tokenScopes: {
    greenhouse: ['GET: List Candidates'],
    lever: ['opportunities:read:admin', 'stages:read:admin'],
  },
  description:
    "Lists candidates of the tenant's ATS (Greenhouse Harvest or Lever), one row per application: id, name, " +
    'application_id, job {id, name}, stage, status (active, rejected, hired, archived), applied_at, ' +
    'last_activity_at, source. Filters: job_id, stage (its name, any case), and a window on created or updated ' +
    `time. At most ${CANDIDATES_MAX_LIMIT} per call (continue with next_cursor). Never returns contact details, ` +
    'resumes or attachments.',
  inputSchema: () =>
    z.strictObject({
      job_id: z
        .optional(z.string().check(z.regex(/^[\w-]{1,64}$/, 'a Greenhouse job id or a Lever posting id')))
        .check(z.describe('Only applications to this job (Greenhouse job id, Lever posting id).')),
      stage: z
        .optional(z.string().check(z.minLength(1), z.maxLength(100)))
        .check(z.describe('Only applications in this stage, by name (Phone Screen), any case.')),
      since: z.optional(isoTimeArg('Created (or updated) at or after this instant.')),
      until: z.optional(isoTimeArg('Created (or updated) before this instant.')),
      field: z
        ._default(z.enum(['created', 'updated']), 'created')
        .check(z.describe('Which time the window applies to (default created).')),
      limit: z
        ._default(z.int().check(z.minimum(1), z.maximum(CANDIDATES_MAX_LIMIT)), 100)
        .check(z.describe(`Rows to return, 1-${CANDIDATES_MAX_LIMIT} (default 100).`)),
      cursor: z
        .optional(z.string().check(z.minLength(1), z.maxLength(1000)))
        .check(z.describe('next_cursor of a previous call with the same filters.')),
    }),
  tags: ['ats', 'read_only', 'personal_data'],
  sideEffects: 'none',
  runtime: { memorySizeMb: 256, timeoutSeconds: 60 },
  ...ATS_SETTINGS,
});
