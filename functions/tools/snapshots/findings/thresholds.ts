/**
 * The thresholds of the snapshot findings: configuration with documented
 * defaults (docs/snapshot-tools.md, "Findings"). A scan takes a partial
 * `thresholds` argument over these defaults and records the values it used in
 * the findings document, so every finding can be traced to its rule.
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../../runtime/built-once';

/** Every threshold, with units in its name. */
export interface SnapshotThresholds {
  /** Earlier snapshots of a source whose changes form its baseline. */
  readonly baselineSnapshots: number;
  /** Fewer baseline changes than this and the spike checks say "no baseline" instead of firing. */
  readonly minBaselineSnapshots: number;
  /** A change spike: new + changed bytes at least this many times the baseline median… */
  readonly changeSpikeFactor: number;
  /** …and at least this many bytes… */
  readonly changeSpikeMinBytes: number;
  /** …or at least this share of the snapshot's bytes (0-1). */
  readonly changeSpikeMinShare: number;
  /** A deletion spike: removed objects (and new delete markers) at least this many times the baseline median… */
  readonly deletionSpikeFactor: number;
  /** …and at least this many objects… */
  readonly deletionSpikeMinObjects: number;
  /** …and at least this share of the previous report's objects (0-1). */
  readonly deletionSpikeMinShare: number;
  /** An extension spike: one extension is at least this share of the new and changed files (0-1)… */
  readonly extensionSpikeMinShare: number;
  /** …and at least this many files… */
  readonly extensionSpikeMinFiles: number;
  /** …while it was at most this share of the previous report's files (0-1). */
  readonly extensionRareShare: number;
  /** A known ransomware extension on at least this many new or changed files. */
  readonly knownExtensionMinFiles: number;
  /** Ransom-note-like names among new or changed files, at least. */
  readonly ransomNoteMinFiles: number;
  /** Snapshots stopped: the newest is older than this many expected intervals… */
  readonly staleFactor: number;
  /** …and older than this many hours. */
  readonly staleMinHours: number;
  /** Extensions (no dot) added to the known ransomware list. */
  readonly extraRansomwareExtensions: readonly string[];
}

/** The defaults, and why. */
export const DEFAULT_THRESHOLDS: SnapshotThresholds = {
  // A week of daily snapshots: enough to see a source's usual rhythm, short enough to follow its trend.
  baselineSnapshots: 7,
  minBaselineSnapshots: 3,
  // 5× the usual change is far outside day-to-day variation (weekly jobs reach 2-3×).
  changeSpikeFactor: 5,
  changeSpikeMinBytes: 1024 ** 3,
  changeSpikeMinShare: 0.1,
  deletionSpikeFactor: 5,
  deletionSpikeMinObjects: 1000,
  deletionSpikeMinShare: 0.05,
  // Encryption waves rewrite most files touched with the same new extension.
  extensionSpikeMinShare: 0.3,
  extensionSpikeMinFiles: 500,
  extensionRareShare: 0.01,
  knownExtensionMinFiles: 10,
  ransomNoteMinFiles: 1,
  // Two missed schedules (a daily inventory two days late) is past any delay S3 documents ("up to 48 hours" for the first report).
  staleFactor: 2,
  staleMinHours: 26,
  extraRansomwareExtensions: [],
};

const share = () => z.optional(z.number().check(z.minimum(0), z.maximum(1)));
const count = (max: number) => z.optional(z.int().check(z.minimum(0), z.maximum(max)));
const factor = () => z.optional(z.number().check(z.minimum(1), z.maximum(1000)));

/** The `thresholds` argument: any subset of {@link SnapshotThresholds}. */
export const thresholdsArg = builtOnce(() =>
  z
    .optional(
      z
        .strictObject({
          baselineSnapshots: z.optional(z.int().check(z.minimum(2), z.maximum(30))),
          minBaselineSnapshots: z.optional(z.int().check(z.minimum(1), z.maximum(30))),
          changeSpikeFactor: factor(),
          changeSpikeMinBytes: count(2 ** 53),
          changeSpikeMinShare: share(),
          deletionSpikeFactor: factor(),
          deletionSpikeMinObjects: count(1e12),
          deletionSpikeMinShare: share(),
          extensionSpikeMinShare: share(),
          extensionSpikeMinFiles: count(1e12),
          extensionRareShare: share(),
          knownExtensionMinFiles: count(1e12),
          ransomNoteMinFiles: z.optional(z.int().check(z.minimum(1), z.maximum(1e9))),
          staleFactor: factor(),
          staleMinHours: z.optional(z.number().check(z.minimum(1), z.maximum(24 * 365))),
          extraRansomwareExtensions: z.optional(
            z
              .array(
                z
                  .string()
                  .check(
                    z.regex(/^[a-z0-9_~-]{1,16}$/, 'an extension: 1-16 of a-z 0-9 _ ~ - without the dot'),
                  ),
              )
              .check(z.maxLength(100)),
          ),
        })
        .check(
          // Asking for more baseline snapshots than are kept would switch the spike checks off unseen.
          z.superRefine((t, ctx) => {
            const kept = t.baselineSnapshots ?? DEFAULT_THRESHOLDS.baselineSnapshots;
            const needed = t.minBaselineSnapshots ?? DEFAULT_THRESHOLDS.minBaselineSnapshots;
            if (needed > kept) {
              ctx.addIssue({
                code: 'custom',
                path: ['minBaselineSnapshots'],
                message: `${needed} is more than the ${kept} baseline snapshots kept (baselineSnapshots): at most ${kept}`,
                input: t,
              });
            }
          }),
        ),
    )
    .check(
      z.describe(
        'Overrides of the finding thresholds (docs/snapshot-tools.md); omitted keys keep their defaults.',
      ),
    ),
);

/** The thresholds in force: the defaults with `overrides` applied. */
export function resolveThresholds(overrides: Partial<SnapshotThresholds> | undefined): SnapshotThresholds {
  const defined = Object.fromEntries(Object.entries(overrides ?? {}).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_THRESHOLDS, ...defined };
}
