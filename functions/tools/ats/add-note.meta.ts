import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { ATS_SETTINGS, candidateIdArg } from './schemas';

/** Longest note `ats_add_note` writes, characters. */
export const ATS_NOTE_MAX_CHARS = 10_000;

/** `ats_add_note`: a note on a candidate, exactly once per call. */
export const atsAddNoteSpec = defineToolSpec({
  name: 'ats_add_note',
  tokenScopes: {
    greenhouse: ['POST: Add Note', 'GET: Retrieve Activity Feed'],
    lever: ['notes:write:admin', 'notes:read:admin'],
  },
  description:
    "Adds a plain-text note to a candidate of the tenant's ATS (Greenhouse: the activity feed, written on behalf of " +
    "the secret's user_id; Lever: the opportunity's notes, as that user). Private by default. At most one note per " +
    "candidate per run (a second call for the same candidate gets the first call's result, or is refused when " +
    'its arguments differ), exactly once whatever retries happen: the note ends with the call key, looked up when an answer is lost. Returns the note id ' +
    'and whether an earlier attempt had already written it.',
  inputSchema: () =>
    z.strictObject({
      candidate_id: candidateIdArg(),
      note: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(ATS_NOTE_MAX_CHARS),
          z.describe(`The note, at most ${ATS_NOTE_MAX_CHARS} characters.`),
        ),
      visibility: z
        ._default(z.enum(['private', 'public']), 'private')
        .check(z.describe('private (default: Greenhouse private, Lever secret) or public.')),
    }),
  tags: ['ats', 'write', 'personal_data'],
  destinationArgs: ['candidate_id'],
  // One note per candidate per run (docs/rest-connectors.md, "Once per target").
  oncePerRunArgs: ['candidate_id'],
  sideEffects: 'write',
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
  ...ATS_SETTINGS,
});
