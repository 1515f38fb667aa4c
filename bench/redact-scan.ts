/**
 * Redaction against a dedicated secret scanner (issue 22, "Redaction"; issue 18,
 * item 5), side by side in one run: the platform's `redactString()` over each
 * line of a 10 MB log of its own output with 200 planted credentials
 * (bench/platform-log.ts), and secretlint (`@secretlint/core` with its
 * recommended preset, a devDependency of the bench only) over the same text.
 *
 * - wall time: medians of alternated runs (the machine is shared, so the two
 *   sides take turns and see the same load); target: redaction ≤ secretlint;
 * - recall: planted credentials found (redaction: none of the secret's 8-character
 *   pieces left in its line; secretlint: a message whose range covers the secret);
 * - false positives: lines without a planted credential that are altered (or
 *   reported); target ≤ 0.1 % of lines.
 *
 * Standalone: `npx tsx bench/redact-scan.ts [runs]` prints the section.
 */
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { redactString } from '../functions/runtime/redact';
import { platformLog } from './platform-log';
import { atMost, type Figure, formatReport, quantile, type Section } from './report';

/** Target of issue 18: lines a redaction alters without a credential in them, as a share of all lines. */
export const FALSE_POSITIVE_TARGET = 0.001;
/** Alternated runs per side; the median is reported. */
export const DEFAULT_SCAN_RUNS = 5;

/** What {@link measureRedactionScan} reports. */
export interface RedactionScan {
  readonly bytes: number;
  readonly lines: number;
  readonly planted: number;
  readonly runs: number;
  readonly redactMs: number;
  readonly secretlintMs: number;
  readonly redactFound: number;
  readonly secretlintFound: number;
  readonly redactFalsePositiveLines: number;
  readonly secretlintFalsePositiveLines: number;
  /** Up to 5 altered lines without a planted credential, for the notes. */
  readonly falsePositiveSamples: readonly string[];
  /** Forms whose planted credential survived redaction. */
  readonly missed: readonly string[];
}

function leaked(out: string, secret: string): boolean {
  const size = Math.min(8, secret.length);
  for (let i = 0; i + size <= secret.length; i++) if (out.includes(secret.slice(i, i + size))) return true;
  return false;
}

const SECRETLINT_OPTIONS = {
  config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] },
};

async function secretlint(text: string) {
  return lintSource({
    source: { filePath: '/tmp/platform.log', content: text, ext: '.log', contentType: 'text' },
    options: SECRETLINT_OPTIONS,
  });
}

/**
 * Runs both sides `runs` times each, alternating, and checks recall and false positives.
 *
 * @param runs - alternated runs per side.
 */
export async function measureRedactionScan(runs = DEFAULT_SCAN_RUNS): Promise<RedactionScan> {
  const log = platformLog();
  const redactTimes: number[] = [];
  const secretlintTimes: number[] = [];
  let redacted: string[] = [];
  let messages: Awaited<ReturnType<typeof secretlint>>['messages'] = [];
  for (let r = 0; r < runs; r++) {
    let started = performance.now();
    redacted = log.lines.map((line) => redactString(line));
    redactTimes.push(performance.now() - started);
    started = performance.now();
    messages = (await secretlint(log.text)).messages;
    secretlintTimes.push(performance.now() - started);
  }

  const plantedLines = new Set(log.planted.map((p) => p.line));
  const missed = log.planted.filter((p) => leaked(redacted[p.line] as string, p.secret)).map((p) => p.form);
  const altered = redacted.flatMap((out, i) => (out !== log.lines[i] && !plantedLines.has(i) ? [i] : []));

  // secretlint reports character ranges of the whole text: map them to lines.
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of log.lines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  const lineOf = (index: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const reportedLines = new Set(messages.map((m) => lineOf(m.range[0])));
  const secretlintFound = log.planted.filter((p) => {
    const start = (lineStarts[p.line] as number) + (log.lines[p.line] as string).indexOf(p.secret);
    return messages.some((m) => m.range[0] < start + p.secret.length && m.range[1] > start);
  }).length;

  return {
    bytes: Buffer.byteLength(log.text),
    lines: log.lines.length,
    planted: log.planted.length,
    runs,
    redactMs: quantile(redactTimes, 0.5),
    secretlintMs: quantile(secretlintTimes, 0.5),
    redactFound: log.planted.length - missed.length,
    secretlintFound,
    redactFalsePositiveLines: altered.length,
    secretlintFalsePositiveLines: [...reportedLines].filter((line) => !plantedLines.has(line)).length,
    falsePositiveSamples: altered.slice(0, 5).map((i) => `${log.lines[i]} => ${redacted[i]}`),
    missed,
  };
}

/** The figures as a report section, with their targets. */
export function redactionScanSection(scan: RedactionScan): Section {
  const figures: Figure[] = [
    { name: 'redactString() per line, median', value: `${scan.redactMs.toFixed(0)} ms` },
    { name: 'secretlint (recommended preset), median', value: `${scan.secretlintMs.toFixed(0)} ms` },
    atMost('redaction ÷ secretlint wall time', scan.redactMs / scan.secretlintMs, 1),
    {
      name: 'planted credentials found: redaction',
      value: `${scan.redactFound}/${scan.planted}`,
      target: `= ${scan.planted}`,
      pass: scan.redactFound === scan.planted,
    },
    { name: 'planted credentials found: secretlint', value: `${scan.secretlintFound}/${scan.planted}` },
    atMost(
      'redaction false-positive lines',
      (100 * scan.redactFalsePositiveLines) / scan.lines,
      100 * FALSE_POSITIVE_TARGET,
      '%',
      3,
    ),
    {
      name: 'secretlint false-positive lines',
      value: `${((100 * scan.secretlintFalsePositiveLines) / scan.lines).toFixed(3)} %`,
    },
  ];
  return {
    title: `Redaction vs secretlint: ${(scan.bytes / 1024 / 1024).toFixed(1)} MB log, ${scan.lines} lines, ${scan.planted} planted credentials, ${scan.runs} alternated runs`,
    figures,
    notes: [
      `false-positive lines: redaction ${scan.redactFalsePositiveLines}, secretlint ${scan.secretlintFalsePositiveLines}`,
      ...(scan.missed.length > 0 ? [`missed by redaction: ${scan.missed.join(', ')}`] : []),
      ...scan.falsePositiveSamples.map((s) => `altered: ${s.slice(0, 300)}`),
    ],
  };
}

if (require.main === module) {
  measureRedactionScan(Number(process.argv[2] ?? DEFAULT_SCAN_RUNS))
    .then((scan) =>
      process.stdout.write(formatReport([`node ${process.version}`], [redactionScanSection(scan)])),
    )
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
