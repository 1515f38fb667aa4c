/**
 * How a rule records a finding of one source: its stable id (check, region,
 * source, snapshot, extension), and the verification steps for its target;
 * with the number and byte formats the rules' titles and evidence use.
 */
import { findingId, type Severity } from '../../aws/shared/findings';
import type { SourceHistory } from './history';
import type { SnapshotCheck, SnapshotFinding } from './model';
import { type VerifyTarget, verificationSteps } from './verification';

/** `value` rounded to `digits` decimals. */
export function round(value: number, digits = 4): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Collects the findings of one source's history. */
export class FindingMaker {
  readonly findings: SnapshotFinding[] = [];
  constructor(private readonly history: SourceHistory) {}

  /**
   * Records a finding of `check` on `snapshot` (null: the source as a whole),
   * with its evidence; `extra` narrows its id (an extension) and its
   * verification steps (a sample key).
   */
  add(
    check: SnapshotCheck,
    severity: Severity,
    snapshot: { id: string; name: string; previousName?: string } | null,
    title: string,
    evidence: Record<string, unknown>,
    extra: { readonly extension?: string; readonly sampleKey?: string } = {},
  ): void {
    const h = this.history;
    const target: VerifyTarget = {
      kind: h.kind,
      region: h.region,
      resource: h.resource,
      ...(h.configurationId !== undefined ? { configurationId: h.configurationId } : {}),
      ...(snapshot ? { snapshot: snapshot.name } : {}),
      ...(snapshot?.previousName ? { previous: snapshot.previousName } : {}),
      ...extra,
    };
    this.findings.push({
      id: findingId(check, h.region ?? '', `${h.source}|${snapshot?.id ?? ''}|${extra.extension ?? ''}`),
      check,
      severity,
      source: h.source,
      snapshot: snapshot?.id ?? null,
      title,
      evidence,
      verify: verificationSteps(check, target),
    });
  }
}

/** Bytes in binary units, one decimal: `1.5 GiB`. */
export function bytesText(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
