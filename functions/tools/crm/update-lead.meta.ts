import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { CRM_SETTINGS, leadStatusArg, recordIdArg } from './schemas';

/** Longest note `crm_update_lead` writes, characters. */
export const NOTE_MAX_CHARS = 5_000;

/** `crm_update_lead`: a lead's score, status and a note, exactly once per call. */
export const crmUpdateLeadSpec = defineToolSpec({
  name: 'crm_update_lead',
  tokenScopes: {
    hubspot: ['crm.objects.contacts.read', 'crm.objects.contacts.write'],
    attio: [
      'record_permission:read',
      'record_permission:read-write',
      'object_configuration:read',
      'note:read',
      'note:read-write',
    ],
  },
  description:
    "Writes to one lead of the tenant's CRM: score (0-100; HubSpot property etp_lead_score, Attio attribute lead_score), " +
    'status (HubSpot hs_lead_status, Attio lead_status) and/or a note on the lead, in one call: at most once per lead ' +
    "per run (a second call for the same lead gets the first call's result, or is refused when its arguments " +
    'differ), and exactly once whatever retries happen: the call key is written with the effect (property etp_update_key, and the last line of the ' +
    'note) and looked up when an answer is lost. Returns lead_id, what was written, the note id and whether an ' +
    'earlier attempt had already written it.',
  inputSchema: () =>
    z
      .strictObject({
        lead_id: recordIdArg('The lead to update'),
        score: z.optional(z.int().check(z.minimum(0), z.maximum(100))).check(z.describe('Fit score, 0-100.')),
        status: z.optional(leadStatusArg()).check(z.describe('The lead status to set.')),
        note: z
          .optional(z.string().check(z.minLength(1), z.maxLength(NOTE_MAX_CHARS)))
          .check(
            z.describe(`A note on the lead (plain text, at most ${NOTE_MAX_CHARS} characters): the reason.`),
          ),
      })
      .check(
        z.refine((args) => args.score !== undefined || args.status !== undefined || args.note !== undefined, {
          message: 'Give at least one of score, status or note',
        }),
      ),
  tags: ['crm', 'write'],
  destinationArgs: ['lead_id'],
  // One update per lead per run, however many calls name it (docs/rest-connectors.md, "Once per target").
  oncePerRunArgs: ['lead_id'],
  sideEffects: 'write',
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
  ...CRM_SETTINGS,
});
