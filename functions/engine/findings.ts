/**
 * Findings across runs: the audit tools report findings with stable ids
 * (functions/tools/aws/shared/findings.ts: same check, account, region and
 * resource, same id on every run), so the engine can say, per tenant and
 * scenario, what is new, unchanged or resolved since the previous run, before
 * the model sees anything.
 */
import { type Finding, rankFindings, SEVERITIES, type Severity } from '../tools/aws/shared/findings';
import type { FindingsCounts } from './records';

/**
 * Why a successful tool's findings were not all read:
 * - `shortened`: the platform shrank its result to fit (`shrunk`, functions/runtime/bound.ts: no claim-checked
 *   file holds it whole);
 * - `incomplete`: the tool itself reported its result incomplete (`truncated` without `shrunk`: it stopped
 *   early, or a part it reads was unavailable); its own reason is {@link ToolCoverage.detail};
 * - `unreadable`: its result was claim-checked but the stored file could not be read back (only its preview was);
 * - `top_only`: the tool itself listed only its top findings (a findings summary with `truncated: true`, its `topN`).
 */
export type PartialReason = 'shortened' | 'incomplete' | 'unreadable' | 'top_only';

/** Each {@link PartialReason} as a clause, for reports and prompts. */
export const PARTIAL_IN_WORDS: Readonly<Record<PartialReason, string>> = {
  shortened: 'its result was shortened to fit, so some of its findings were not read',
  incomplete: 'it reported its own result incomplete, so the findings it did not reach are missing',
  unreadable: 'its stored result could not be read back, so only the findings of its preview were read',
  top_only: 'it listed only its top findings, as its topN asks, so the others were counted but not read',
};

/** How the findings of one tool were read this run. */
export interface ToolCoverage {
  /** The call succeeded. */
  readonly ok: boolean;
  /**
   * Every finding the tool found is listed: its result was read whole (inline
   * and not shrunk, or from its claim-checked file) and no findings summary of
   * it left findings out (`truncated`).
   */
  readonly complete: boolean;
  /** Why not, when `ok` and not `complete`. */
  readonly partial?: PartialReason;
  /** With `partial: 'incomplete'`: the tool's own reason ({@link incompleteDetail}). */
  readonly detail?: string;
}

/** Longest {@link ToolCoverage.detail}, in characters. */
export const INCOMPLETE_DETAIL_CHARS = 160;

/**
 * Why a tool reported its own result incomplete, from its value's usual fields:
 * a member holding an `error` with a `code` (`credentialReport: timeout`), the
 * regions its deadline left unread (`skippedRegions`), regions it stopped early
 * in (`regions[].stoppedBy`, the page cap or the deadline); else the tool's own
 * summary. At most {@link INCOMPLETE_DETAIL_CHARS} characters, cut at a word.
 */
export function incompleteDetail(value: unknown, summary: string): string {
  const parts: string[] = [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const [key, member] of Object.entries(record)) {
      const error = (member as { error?: { code?: unknown } } | null)?.error;
      if (member && typeof member === 'object' && typeof error?.code === 'string') {
        parts.push(`${key}: ${error.code}`);
      }
    }
    const skipped = record.skippedRegions;
    if (Array.isArray(skipped) && skipped.length > 0) {
      parts.push(`regions not read before its deadline: ${skipped.join(', ')}`);
    }
    if (Array.isArray(record.regions)) {
      const stopped = record.regions.flatMap((region) => {
        const { region: name, stoppedBy } = (region ?? {}) as { region?: unknown; stoppedBy?: unknown };
        return typeof name === 'string' && typeof stoppedBy === 'string' ? [`${name} (${stoppedBy})`] : [];
      });
      if (stopped.length > 0) parts.push(`stopped early in ${stopped.join(', ')}`);
    }
  }
  const text = parts.length > 0 ? parts.join('; ') : summary;
  return cutAtWord(text, INCOMPLETE_DETAIL_CHARS);
}

/** `text` cut to at most `max` characters at a word boundary, `…` marking the cut; as is when it fits. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > 0 ? head.slice(0, space) : head).replace(/[\s,;.:]+$/, '')}…`;
}

/** A partial reason as a clause: {@link PARTIAL_IN_WORDS}, with the tool's own reason when it gave one. */
export function partialInWords(why: PartialReason, detail?: string): string {
  return why === 'incomplete' && detail
    ? `it reported its own result incomplete (${detail}), so the findings it did not reach are missing`
    : PARTIAL_IN_WORDS[why];
}

/** A finding and the tool that reported it. */
export interface TrackedFinding extends Finding {
  readonly tool: string;
}

/** What a level's findings file holds (`levels/<level>/findings.json` of the run's workspace). */
export interface FindingsFile {
  readonly runId: string;
  readonly level: string;
  /** Ranked: severity, then monthly cost, then id. */
  readonly findings: readonly TrackedFinding[];
  readonly coverage: Readonly<Record<string, ToolCoverage>>;
  readonly diff: FindingsDiff;
}

/** Findings compared with the tenant's previous run of the scenario. */
export interface FindingsDiff {
  readonly previousRunId?: string;
  /** Ids of this run's findings the previous run did not have (all of them on a first run). */
  readonly new: readonly string[];
  /** Ids present in both runs. */
  readonly unchanged: readonly string[];
  /** Previous findings gone although their tool succeeded and listed every finding. */
  readonly resolved: readonly TrackedFinding[];
  /** Previous findings not seen because their tool failed or listed only its top findings: neither resolved nor open. */
  readonly unknown: readonly TrackedFinding[];
}

const FINDING_ID = /^[a-z0-9_]+:[0-9a-f]{16}$/;
/** Deepest a result value is walked for findings: audit results nest 3-5 levels. */
const MAX_WALK_DEPTH = 12;

function isFinding(value: Record<string, unknown>): value is Finding & Record<string, unknown> {
  return (
    typeof value.id === 'string' &&
    FINDING_ID.test(value.id) &&
    typeof value.check === 'string' &&
    typeof value.title === 'string' &&
    typeof value.resource === 'string' &&
    SEVERITIES.includes(value.severity as Severity)
  );
}

/**
 * Every finding in a tool's result value, wherever the tool put it (a findings
 * summary's `top`, a per-resource list), once per id, and whether the list is
 * complete: a findings summary with `truncated: true` lists only its top findings.
 */
export function findingsIn(value: unknown): { findings: Finding[]; complete: boolean } {
  const found = new Map<string, Finding>();
  let complete = true;
  const walk = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > MAX_WALK_DEPTH) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    const object = node as Record<string, unknown>;
    if (isFinding(object)) {
      if (!found.has(object.id)) found.set(object.id, object);
      return;
    }
    if (Array.isArray(object.top) && object.truncated === true) complete = false;
    for (const child of Object.values(object)) walk(child, depth + 1);
  };
  walk(value, 0);
  return { findings: [...found.values()], complete };
}

/**
 * Compares this run's findings with the previous run's. A previous finding is
 * resolved only when its tool succeeded this run with a complete list: a failed
 * call or a top-N list says nothing about it (it goes to `unknown`).
 */
export function diffFindings(
  current: readonly TrackedFinding[],
  coverage: Readonly<Record<string, ToolCoverage>>,
  previous?: Pick<FindingsFile, 'runId' | 'findings'>,
): FindingsDiff {
  const before = new Map((previous?.findings ?? []).map((finding) => [finding.id, finding]));
  const now = new Set(current.map((finding) => finding.id));
  const gone = [...before.values()].filter((finding) => !now.has(finding.id));
  const seenWhole = (finding: TrackedFinding) => {
    const tool = coverage[finding.tool];
    return tool?.ok === true && tool.complete;
  };
  return {
    ...(previous ? { previousRunId: previous.runId } : {}),
    new: current.filter((finding) => !before.has(finding.id)).map((finding) => finding.id),
    unchanged: current.filter((finding) => before.has(finding.id)).map((finding) => finding.id),
    resolved: gone.filter(seenWhole),
    unknown: gone.filter((finding) => !seenWhole(finding)),
  };
}

/** Ranks findings the way every report does (severity, monthly cost, id), keeping their tool. */
export function rankTracked(findings: readonly TrackedFinding[]): TrackedFinding[] {
  return rankFindings(findings) as TrackedFinding[];
}

/** The counts a level record keeps. */
export function findingsCounts(file: Pick<FindingsFile, 'findings' | 'diff'>): FindingsCounts {
  const bySeverity: Record<string, number> = {};
  let cost = 0;
  for (const finding of file.findings) {
    bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
    cost += finding.monthlyCost?.usd ?? 0;
  }
  return {
    total: file.findings.length,
    new: file.diff.new.length,
    unchanged: file.diff.unchanged.length,
    resolved: file.diff.resolved.length,
    unknown: file.diff.unknown.length,
    bySeverity,
    estimatedMonthlyCostUsd: Math.round(cost * 100) / 100,
    ...(file.diff.previousRunId ? { previousRunId: file.diff.previousRunId } : {}),
  };
}

/** Findings listed in full in a prompt; the rest are counted and in the findings file. */
export const PROMPT_FINDINGS_LIMIT = 40;

function findingLine(finding: TrackedFinding, status: string): string {
  const cost = finding.monthlyCost ? ` — ~$${finding.monthlyCost.usd.toFixed(2)}/month` : '';
  return `- [${status}] ${finding.severity.toUpperCase()} ${finding.title} (${finding.resource}, ${finding.region}; ${finding.check})${cost}`;
}

/**
 * The findings as a prompt section: counts, then the ranked findings each marked
 * NEW or UNCHANGED, then the resolved ones and those whose state is unknown.
 *
 * @param path - where the whole file is in the run's workspace (for `read_file`).
 */
export function renderFindings(file: FindingsFile, path: string): string {
  const counts = findingsCounts(file);
  const isNew = new Set(file.diff.new);
  const since = file.diff.previousRunId
    ? `since the previous run (${file.diff.previousRunId})`
    : 'this is the first run of this scenario for the tenant, so every finding is new';
  const lines = [
    `${counts.total} findings (${SEVERITIES.filter((s) => counts.bySeverity[s])
      .map((s) => `${counts.bySeverity[s]} ${s}`)
      .join(', ')}), estimated waste ~$${counts.estimatedMonthlyCostUsd.toFixed(2)}/month; ` +
      `${counts.new} new, ${counts.unchanged} unchanged, ${counts.resolved} resolved ${since}.`,
  ];
  for (const finding of file.findings.slice(0, PROMPT_FINDINGS_LIMIT)) {
    lines.push(findingLine(finding, isNew.has(finding.id) ? 'NEW' : 'UNCHANGED'));
  }
  if (file.findings.length > PROMPT_FINDINGS_LIMIT) {
    lines.push(
      `… and ${file.findings.length - PROMPT_FINDINGS_LIMIT} more, ranked the same way in ${path} (read_file it in slices).`,
    );
  }
  for (const finding of file.diff.resolved.slice(0, PROMPT_FINDINGS_LIMIT)) {
    lines.push(findingLine(finding, 'RESOLVED'));
  }
  for (const finding of file.diff.unknown.slice(0, PROMPT_FINDINGS_LIMIT)) {
    lines.push(findingLine(finding, 'NOT CHECKED THIS RUN'));
  }
  const failed = Object.entries(file.coverage).filter(([, tool]) => !tool.ok);
  if (failed.length > 0) {
    lines.push(
      `Tools that failed this run (their findings are unknown): ${failed.map(([tool]) => tool).join(', ')}.`,
    );
  }
  const partial = Object.entries(file.coverage).filter(([, tool]) => tool.ok && tool.partial);
  if (partial.length > 0) {
    lines.push(
      `Tools whose findings were read only in part (the counts above hold what was read): ${partial
        .map(([tool, read]) => `${tool} (${partialInWords(read.partial as PartialReason, read.detail)})`)
        .join(', ')}.`,
    );
  }
  return lines.join('\n');
}
