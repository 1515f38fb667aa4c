import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { atsGetCandidateSpec } from './get-candidate.meta';
import { atsProvider } from './provider';

/** `ats_get_candidate` with its handler. */
export const atsGetCandidateTool = defineTool(atsGetCandidateSpec, async (ctx, args) => {
  const provider = await atsProvider(ctx);
  const candidate = await provider.getCandidate(args.candidate_id);
  return {
    value: { provider: provider.name, candidate, requests: provider.requests() },
    summary: `${candidate.name}: ${candidate.applications.length} applications, ${candidate.stage_history.length} stage changes (${provider.name})`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(atsGetCandidateTool);
