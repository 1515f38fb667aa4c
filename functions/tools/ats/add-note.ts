import { writeAttemptTimeoutMs } from '../../runtime/http/connector';
import { writeMarker, writeOnce } from '../../runtime/http/write-once';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { atsAddNoteSpec } from './add-note.meta';
import { atsProvider } from './provider';

/** `ats_add_note` with its handler: the note ends with the call's marker and is written once (`writeOnce`). */
export const atsAddNoteTool = defineTool(atsAddNoteSpec, async (ctx, args) => {
  const provider = await atsProvider(ctx, {
    attemptTimeoutMs: writeAttemptTimeoutMs(ctx.deadline.remainingMs()),
  });
  const marker = writeMarker(ctx);
  const { value, recovered } = await writeOnce(ctx, {
    service: provider.name,
    what: `note on candidate ${args.candidate_id}`,
    write: () => provider.addNote(args.candidate_id, `${args.note}\n\n${marker}`, args.visibility),
    find: () => provider.findNote(args.candidate_id, marker),
  });
  return {
    value: {
      provider: provider.name,
      candidate_id: args.candidate_id,
      note_id: value,
      visibility: args.visibility,
      marker,
      recovered,
      requests: provider.requests(),
    },
    summary: `Note ${value} on candidate ${args.candidate_id} in ${provider.name}${recovered ? ' (found already written)' : ''}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(atsAddNoteTool);
