import { PlatformError } from '../../runtime/errors';
import { writeAttemptTimeoutMs } from '../../runtime/http/connector';
import { type WriteOutcome, writeMarker, writeOnce } from '../../runtime/http/write-once';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { crmProvider } from './provider';
import { crmUpdateLeadSpec } from './update-lead.meta';

/**
 * `crm_update_lead` with its handler: the note first, then score and status
 * with the marker, each written once (`writeOnce`: after a lost answer it is
 * looked up by the call's marker, never sent again). The lookup reads the lead
 * with its notes, so one lookup serves both writes.
 */
export const crmUpdateLeadTool = defineTool(crmUpdateLeadSpec, async (ctx, args) => {
  const provider = await crmProvider(ctx, {
    attemptTimeoutMs: writeAttemptTimeoutMs(ctx.deadline.remainingMs()),
  });
  const marker = writeMarker(ctx);
  const lookup = () => provider.findMarker(args.lead_id, marker);
  let noteId: string | null = null;
  let recovered = false;
  if (args.note !== undefined) {
    const note = await writeOnce(ctx, {
      service: provider.name,
      what: `note on lead ${args.lead_id}`,
      write: () => provider.createNote(args.lead_id, `${args.note}\n\n${marker}`),
      find: async () => {
        const found = await lookup();
        // Notes left unread may hold it: not found is not "not written".
        if (found.noteId === undefined && found.notesUnread !== undefined) {
          throw new PlatformError('upstream_error', found.notesUnread, { service: provider.name });
        }
        return found.noteId;
      },
    });
    noteId = note.value;
    recovered ||= note.recovered;
  }
  const properties = args.score !== undefined || args.status !== undefined;
  if (properties) {
    let update: WriteOutcome<boolean>;
    try {
      update = await writeOnce(ctx, {
        service: provider.name,
        what: `score and status of lead ${args.lead_id}`,
        write: async () => {
          await provider.setProperties({
            leadId: args.lead_id,
            ...(args.score === undefined ? {} : { score: args.score }),
            ...(args.status === undefined ? {} : { status: args.status }),
            marker,
          });
          return true;
        },
        find: async () => ((await lookup()).updated ? true : undefined),
      });
    } catch (err) {
      throw afterNote(err, noteId, provider.name, ctx.tool);
    }
    recovered ||= update.recovered;
  }
  const written = [
    ...(args.score === undefined ? [] : [`score ${args.score}`]),
    ...(args.status === undefined ? [] : [`status ${args.status}`]),
    ...(args.note === undefined ? [] : ['a note']),
  ];
  return {
    value: {
      provider: provider.name,
      lead_id: args.lead_id,
      score: args.score ?? null,
      status: args.status ?? null,
      note_id: noteId,
      marker,
      recovered,
      requests: provider.requests(),
    },
    summary: `Lead ${args.lead_id} in ${provider.name}: ${written.join(', ')}${recovered ? ' (found already written)' : ''}`,
  };
});

/**
 * The properties' failure once the note is written: the call did take effect
 * (`details.effect: 'partial'`, the note's id), so its record is kept and a retry
 * does not write the note again; an unknown outcome stays unknown. Without a note,
 * the error as it is.
 */
function afterNote(err: unknown, noteId: string | null, service: string, tool: string): unknown {
  if (noteId === null) return err;
  const info = normalizeError(tool, err, service);
  if (info.details?.effect === 'unknown') return err;
  return new PlatformError(
    info.code,
    `The note ${noteId} was written, then the score and status update failed: ${info.message}`,
    {
      retryable: false,
      service,
      details: { ...info.details, effect: 'partial', note_id: noteId },
      cause: err,
    },
  );
}

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(crmUpdateLeadTool);
