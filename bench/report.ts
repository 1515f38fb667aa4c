/**
 * The benchmark report: figures with their targets, printed as a compact text
 * table (also written to `bench/out/latest.txt`). A figure without a target is
 * informational; one with a target carries PASS or FAIL.
 */

/** One printed figure. */
export interface Figure {
  /** What was measured (`dispatcher bundle`, `cold start ratio aws_ec2_inventory`). */
  readonly name: string;
  /** The value as printed, units included (`412.3 KiB`, `1.07`). */
  readonly value: string;
  /** The target as printed (`≤ 1.15`); absent for informational figures. */
  readonly target?: string;
  /** Whether the target is met; absent for informational figures. */
  readonly pass?: boolean;
}

/** A titled group of figures, with free-form notes printed under it. */
export interface Section {
  readonly title: string;
  readonly figures: readonly Figure[];
  readonly notes?: readonly string[];
}

/** A figure checked against an upper bound: PASS when `measured <= limit`. */
export function atMost(name: string, measured: number, limit: number, unit = '', digits = 2): Figure {
  const suffix = unit ? ` ${unit}` : '';
  return {
    name,
    value: `${measured.toFixed(digits)}${suffix}`,
    target: `≤ ${limit}${suffix}`,
    pass: measured <= limit,
  };
}

/** Bytes as KiB with one decimal (`412.3 KiB`). */
export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * The `q`-quantile (0..1) of `samples` by the nearest-rank method.
 *
 * @throws Error when `samples` is empty.
 */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('quantile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** The report as text: one block per section, figures aligned, then a verdict line. */
export function formatReport(header: readonly string[], sections: readonly Section[]): string {
  const figures = sections.flatMap((s) => s.figures);
  const nameWidth = Math.max(...figures.map((f) => f.name.length));
  const valueWidth = Math.max(...figures.map((f) => f.value.length));
  const lines = [...header, ''];
  for (const section of sections) {
    lines.push(`== ${section.title}`);
    for (const f of section.figures) {
      const verdict =
        f.pass === undefined ? '' : `  ${(f.target ?? '').padEnd(12)} ${f.pass ? 'PASS' : 'FAIL'}`;
      lines.push(`  ${f.name.padEnd(nameWidth)}  ${f.value.padStart(valueWidth)}${verdict}`.trimEnd());
    }
    for (const note of section.notes ?? []) lines.push(`  note: ${note}`);
    lines.push('');
  }
  const checked = figures.filter((f) => f.pass !== undefined);
  const failed = checked.filter((f) => f.pass === false);
  lines.push(
    failed.length === 0
      ? `ALL ${checked.length} TARGETS MET`
      : `${failed.length} OF ${checked.length} TARGETS MISSED: ${failed.map((f) => f.name).join('; ')}`,
  );
  return `${lines.join('\n')}\n`;
}
