import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { ATS_SETTINGS, candidateIdArg } from './schemas';

/** `ats_get_candidate`: one candidate with applications and stage history. */
export const atsGetCandidateSpec = defineToolSpec({
  name: 'ats_get_candidate',
  tokenScopes: {
    greenhouse: ['GET: Retrieve Candidate', 'GET: Retrieve Activity Feed'],
    lever: ['opportunities:read:admin', 'stages:read:admin', 'notes:read:admin'],
  },
  description:
    "Reads one candidate of the tenant's ATS: id, name, company, title, tags, created_at, updated_at, applications " +
    '(id, job, status, stage, applied_at, rejected_at, source) and stage_history (stage, job, at; oldest first). ' +
    'Two requests. Never returns contact details, resumes, attachments, answers or the bodies of notes and emails.',
  inputSchema: () => z.strictObject({ candidate_id: candidateIdArg() }),
  tags: ['ats', 'read_only', 'personal_data'],
  sideEffects: 'none',
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
  ...ATS_SETTINGS,
});
