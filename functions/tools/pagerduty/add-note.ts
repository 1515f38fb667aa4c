import { writeAttemptTimeoutMs } from '../../runtime/http/connector';
import { writeMarker, writeOnce } from '../../runtime/http/write-once';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { assertClearWrite } from '../../runtime/write-answer';
import { pagerdutyAddNoteSpec } from './add-note.meta';
import { pagerduty } from './connector';

interface ApiNote {
  id?: unknown;
  content?: unknown;
  created_at?: unknown;
}

/** The marker as it ends a note: on a line of its own, in brackets. */
export function noteMarker(marker: string): string {
  return `[${marker}]`;
}

/** `pagerduty_add_note` with its handler. */
export const pagerdutyAddNoteTool = defineTool(pagerdutyAddNoteSpec, async (ctx, args) => {
  const session = pagerduty.session(ctx, {
    attemptTimeoutMs: writeAttemptTimeoutMs(ctx.deadline.remainingMs()),
  });
  const secret = await session.secret();
  const path = `/incidents/${encodeURIComponent(args.incident_id)}/notes`;
  const marker = noteMarker(writeMarker(ctx));
  const headers = secret.from ? { from: secret.from } : undefined;
  const result = (note: ApiNote) => ({
    incident_id: args.incident_id,
    note_id: note.id as string,
    created_at: (note.created_at as string) ?? null,
  });
  const outcome = await writeOnce(ctx, {
    service: 'pagerduty',
    what: `note on incident ${args.incident_id}`,
    write: async () => {
      const response = await session.request({
        method: 'POST',
        path,
        body: { note: { content: `${args.content}\n\n${marker}` } },
        ...(headers ? { headers } : {}),
        scope: 'incidents.write',
      });
      const note = (response.body as { note?: ApiNote } | undefined)?.note;
      assertClearWrite(
        { status: response.status, body: response.text },
        {
          service: 'pagerduty',
          write: 'note creation',
          expected: 'the created note (its id)',
          acknowledges: () => typeof note?.id === 'string',
        },
      );
      return result(note as ApiNote);
    },
    // An incident's notes come in one answer (GET /incidents/{id}/notes is not paginated).
    find: async () => {
      const { notes = [] } = await session.json<{ notes?: ApiNote[] }>({
        method: 'GET',
        path,
        scope: 'incidents.read',
      });
      const found = notes.find((n) => typeof n.content === 'string' && n.content.includes(marker));
      return found ? result(found) : undefined;
    },
  });
  return {
    value: { ...outcome.value, recovered: outcome.recovered },
    summary: `${outcome.recovered ? 'Found already added' : 'Added'} note ${outcome.value.note_id} to incident ${args.incident_id}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(pagerdutyAddNoteTool);
