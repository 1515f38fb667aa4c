/**
 * The ATS family's shape (`ats_*`), the same whatever the vendor. Candidate data
 * is personal data: these are the only fields the tools return — no email
 * address, phone, postal address, resume, attachment, answer, salary, email or
 * note body of the candidate's file — and no tool ever requests a resume or an
 * attachment (test/unit/tools/ats/no-attachments.test.ts proves it over every
 * module the tools load).
 */

import type { PageRead } from '../../runtime/http/pagination';

/** Where an application stands. Greenhouse: its `status`; Lever: archived (hired when archived as hired) or active. */
export type ApplicationStatus = 'active' | 'rejected' | 'hired' | 'archived';

/** A job (Greenhouse job, Lever posting). */
export interface JobRef {
  readonly id: string;
  /** Null where the API names only the id (Lever's applications). */
  readonly name: string | null;
}

/** A candidate as a list returns it: one row per application. */
export interface CandidateSummary {
  /** The candidate (Greenhouse candidate id, Lever opportunity id), for `ats_get_candidate` and `ats_add_note`. */
  readonly id: string;
  readonly name: string;
  readonly application_id: string | null;
  readonly job: JobRef | null;
  /** The current stage's name. */
  readonly stage: string | null;
  readonly status: ApplicationStatus;
  /** ISO 8601 UTC. */
  readonly applied_at: string | null;
  readonly last_activity_at: string | null;
  /** Where the candidate came from (a source's public name, or Lever's first source). */
  readonly source: string | null;
}

/** One application of a candidate. */
export interface Application {
  readonly id: string;
  readonly job: JobRef | null;
  readonly status: ApplicationStatus;
  readonly stage: string | null;
  readonly applied_at: string | null;
  readonly rejected_at: string | null;
  readonly source: string | null;
}

/** One move between stages. */
export interface StageChange {
  /** The stage moved into. */
  readonly stage: string;
  /** The job it was for, when the API says. */
  readonly job: string | null;
  /** ISO 8601 UTC. */
  readonly at: string;
}

/** A candidate with applications and stage history. */
export interface Candidate {
  readonly id: string;
  readonly name: string;
  /** Current company and title as the candidate gave them (Lever: the headline). */
  readonly company: string | null;
  readonly title: string | null;
  readonly tags: readonly string[];
  readonly created_at: string | null;
  readonly updated_at: string | null;
  readonly applications: readonly Application[];
  /** Oldest first. */
  readonly stage_history: readonly StageChange[];
}

/** One page request of a candidate query. */
export interface CandidateQuery {
  readonly jobId?: string;
  /** A stage name, matched case-insensitively. */
  readonly stage?: string;
  readonly since?: string;
  readonly until?: string;
  readonly field: 'created' | 'updated';
  readonly pageSize: number;
  readonly maxPages: number;
  /** The paginator's continuation (`PageRead.next` of an earlier read). */
  readonly continueFrom?: string;
}

/** The rows read, in the provider's order, and how the read ended (`paginate`'s account). */
export interface CandidatePage extends Omit<PageRead<unknown>, 'records'> {
  readonly candidates: readonly CandidateSummary[];
  /** Candidates read from the API (before the stage filter, where the API cannot filter). */
  readonly scanned: number;
}

/** What an ATS provider does, in the family's shape. */
export interface AtsProvider {
  readonly name: 'greenhouse' | 'lever';
  readonly maxPageSize: number;
  listCandidates(query: CandidateQuery): Promise<CandidatePage>;
  getCandidate(candidateId: string): Promise<Candidate>;
  /** Adds the note (text ending with the marker line); returns its id. */
  addNote(candidateId: string, text: string, visibility: 'private' | 'public'): Promise<string>;
  /** The id of the candidate's note carrying the marker, if any. */
  findNote(candidateId: string, marker: string): Promise<string | undefined>;
  /** Requests sent so far by this provider's session. */
  readonly requests: () => number;
}
