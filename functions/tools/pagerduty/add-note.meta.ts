import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { pagerdutyId } from './schemas';

/** Longest note taken, characters (room is kept for the call's marker). */
export const NOTE_MAX_CHARS = 20_000;

/** `pagerduty_add_note`: adds a note to an incident, exactly once per call. */
export const pagerdutyAddNoteSpec = defineToolSpec({
  name: 'pagerduty_add_note',
  tokenScopes: { pagerduty: ['incidents.write', 'incidents.read'] },
  description:
    "Adds a note to a PagerDuty incident with the tenant's pagerduty_default credential (an account key also needs " +
    '"from", a user\'s e-mail, in the secret). At most one note per incident per run (a second call for the same incident gets the ' +
    "first call's result, or is refused when its content differs), exactly once whatever retries happen: the note ends with a " +
    'short marker of the call, and a note whose answer was lost is found by it instead of added again. Returns the ' +
    'note id and recovered: true when it was found already added.',
  inputSchema: () =>
    z.strictObject({
      incident_id: pagerdutyId('An incident'),
      content: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(NOTE_MAX_CHARS),
          z.describe(`The note, plain text, at most ${NOTE_MAX_CHARS} characters.`),
        ),
    }),
  tags: ['pagerduty', 'write'],
  service: 'pagerduty',
  requiresSecrets: ['pagerduty_default'],
  sideEffects: 'write',
  destinationArgs: ['incident_id'],
  // One note per incident per run (docs/rest-connectors.md, "Once per target").
  oncePerRunArgs: ['incident_id'],
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
});
