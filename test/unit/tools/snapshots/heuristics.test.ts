import { computeFindings } from '../../../../functions/tools/snapshots/findings/heuristics';
import {
  type ChangeStep,
  type ExtensionFigure,
  median,
  type SnapshotFacts,
  type SourceHistory,
} from '../../../../functions/tools/snapshots/findings/history';
import {
  DEFAULT_THRESHOLDS,
  resolveThresholds,
} from '../../../../functions/tools/snapshots/findings/thresholds';

const DAY = 86_400_000;
const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const START = Date.UTC(2026, 2, 1, 1);

function time(day: number): string {
  return new Date(START + day * DAY)
    .toISOString()
    .replace(/:\d\d\.\d{3}Z$/, 'Z')
    .replace(':', '-');
}

/** A day-by-day S3 history: `steps[i]` is the change from day i to day i+1, ordinary unless overridden. */
function s3History(
  days: number,
  overrides: Record<number, Partial<ChangeStep>> = {},
  extra: Partial<SourceHistory> = {},
): SourceHistory {
  const snapshots: SnapshotFacts[] = Array.from({ length: days }, (_, d) => ({
    id: `s3_inventory:photos/daily/${time(d)}`,
    name: time(d),
    timeMs: START + d * DAY,
    encrypted: null,
    public: null,
  }));
  const steps: ChangeStep[] = snapshots.slice(1).map((s, i) => ({
    snapshot: s.id,
    snapshotName: s.name,
    previous: (snapshots[i] as SnapshotFacts).id,
    previousName: (snapshots[i] as SnapshotFacts).name,
    timeMs: s.timeMs,
    totalBytes: 6 * GIB,
    newBytes: (90 + (i % 3) * 10) * MIB,
    newUnits: 50,
    unit: 'objects',
    previousObjects: 3000,
    removedObjects: 10 + (i % 2),
    removedBytes: 10 * MIB,
    extensions: [figure('pdf', 20, 0.3), figure('jpg', 15, 0.25)],
    ransomNotes: { count: 0, folders: 0, samples: [] },
    samples: { new: ['docs/new.pdf'], removed: ['docs/old.pdf'] },
    ...overrides[i + 1],
  }));
  return {
    source: 's3_inventory:photos/daily',
    kind: 's3_inventory',
    region: null,
    resource: 'photos',
    configurationId: 'daily',
    snapshots,
    steps,
    examinedFromMs: START + (days - 1) * DAY,
    expectedIntervalHours: 24,
    disabled: false,
    publicDestination: null,
    ...extra,
  };
}

function figure(
  extension: string,
  files: number,
  previousShare: number,
  previousFiles = Math.round(previousShare * 3000),
): ExtensionFigure {
  return {
    extension,
    files,
    bytes: files * MIB,
    previousFiles,
    previousShare,
    samples: [`docs/x.${extension}`],
  };
}

const NOW = START + 9 * DAY + 3_600_000;
const checksOf = (history: SourceHistory, thresholds = DEFAULT_THRESHOLDS, now = NOW) =>
  computeFindings(history, thresholds, now).findings.map((f) => `${f.check}:${f.severity}`);

describe('change spike', () => {
  it("fires on new bytes far above the source's baseline median, critical past half the data", () => {
    const history = s3History(10, { 9: { newBytes: 4 * GIB, newUnits: 2000 } });

    const { findings } = computeFindings(history, DEFAULT_THRESHOLDS, NOW);
    const spike = findings.find((f) => f.check === 'change_spike');

    expect(spike).toMatchObject({
      severity: 'critical',
      snapshot: `s3_inventory:photos/daily/${time(9)}`,
      evidence: { newBytes: 4 * GIB, baseline: { medianNewBytes: 100 * MIB }, threshold: { factor: 5 } },
    });
    expect(spike?.evidence.sampleKeys).toEqual(['docs/new.pdf']);
    expect(spike?.verify.join('\n')).toContain('aws s3api list-objects-v2 --bucket photos');
  });

  it('is high below half the data, and silent below the factor or the minimum size', () => {
    expect(checksOf(s3History(10, { 9: { newBytes: 2 * GIB } }))).toContain('change_spike:high');
    expect(checksOf(s3History(10, { 9: { newBytes: 450 * MIB } }))).not.toContain('change_spike:high');
    // 5× the baseline but under 1 GiB and under 10% of 6 GiB.
    expect(checksOf(s3History(10, { 9: { newBytes: 550 * MIB } }))).toEqual([]);
    expect(
      checksOf(s3History(10, { 9: { newBytes: 550 * MIB } }), resolveThresholds({ changeSpikeMinBytes: 0 })),
    ).toEqual(['change_spike:high']);
  });

  it('says why it could not check a source without enough baseline', () => {
    const result = computeFindings(
      s3History(3, { 2: { newBytes: 5 * GIB } }),
      DEFAULT_THRESHOLDS,
      START + 2 * DAY + 3_600_000,
    );

    expect(result.findings).toEqual([]);
    expect(result.notes[0]).toContain('1 earlier change(s) < minBaselineSnapshots 3');
  });

  it("examines only snapshots since the scan's start; earlier ones are baseline", () => {
    const history = s3History(10, { 5: { newBytes: 5 * GIB } });

    expect(checksOf(history)).toEqual([]);
    expect(checksOf({ ...history, examinedFromMs: START + 5 * DAY })).toContain('change_spike:critical');
  });
});

describe('deletion spike', () => {
  it('fires when far more objects disappear than usual, critical past a quarter', () => {
    const findings = computeFindings(
      s3History(10, { 9: { removedObjects: 1500 } }),
      DEFAULT_THRESHOLDS,
      NOW,
    ).findings;

    expect(findings.map((f) => f.check)).toEqual(['deletion_spike']);
    expect(findings[0]).toMatchObject({
      severity: 'critical',
      evidence: {
        removedObjects: 1500,
        previousObjects: 3000,
        shareOfPrevious: 0.5,
        baseline: { medianRemovedObjects: 11 },
      },
    });
    expect(checksOf(s3History(10, { 9: { removedObjects: 1200, previousObjects: 8000 } }))).toEqual([
      'deletion_spike:high',
    ]);
  });

  it('stays silent under the minimum count or share', () => {
    expect(checksOf(s3History(10, { 9: { removedObjects: 900 } }))).toEqual([]);
    expect(checksOf(s3History(10, { 9: { removedObjects: 1500, previousObjects: 100_000 } }))).toEqual([]);
  });
});

describe('extension findings', () => {
  it('flags a previously rare extension that dominates new and changed files', () => {
    const step = { newUnits: 700, extensions: [figure('qkr7', 650, 0), figure('pdf', 30, 0.3)] };

    const findings = computeFindings(s3History(10, { 9: step }), DEFAULT_THRESHOLDS, NOW).findings;

    expect(findings.map((f) => `${f.check}:${f.severity}`)).toEqual(['extension_spike:high']);
    expect(findings[0]?.evidence).toMatchObject({
      extension: 'qkr7',
      files: 650,
      shareOfNewOrChanged: 0.9286,
      previousShare: 0,
    });
    expect(findings[0]?.verify.join('\n')).toContain("ends_with(Key, '.qkr7')");
  });

  it('leaves an extension that was already common, or too few files', () => {
    expect(checksOf(s3History(10, { 9: { newUnits: 700, extensions: [figure('pdf', 650, 0.3)] } }))).toEqual(
      [],
    );
    expect(checksOf(s3History(10, { 9: { newUnits: 400, extensions: [figure('qkr7', 400, 0)] } }))).toEqual(
      [],
    );
  });

  it('flags known ransomware extensions from a handful of files, critical, instead of a spike', () => {
    expect(checksOf(s3History(10, { 9: { newUnits: 700, extensions: [figure('locked', 650, 0)] } }))).toEqual(
      ['ransomware_extension:critical'],
    );
    expect(checksOf(s3History(10, { 9: { extensions: [figure('wncry', 10, 0)] } }))).toEqual([
      'ransomware_extension:critical',
    ]);
    expect(checksOf(s3History(10, { 9: { extensions: [figure('wncry', 9, 0)] } }))).toEqual([]);
  });

  it('takes extra ransomware extensions from the thresholds', () => {
    const history = s3History(10, { 9: { newUnits: 700, extensions: [figure('qkr7', 650, 0)] } });

    expect(checksOf(history, resolveThresholds({ extraRansomwareExtensions: ['qkr7'] }))).toEqual([
      'ransomware_extension:critical',
    ]);
  });
});

describe('ransom notes', () => {
  it('fires on one note-like name, critical once spread over ten folders', () => {
    const one = { ransomNotes: { count: 1, folders: 1, samples: ['a/HOW_TO_DECRYPT.txt'] } };
    const spread = { ransomNotes: { count: 20, folders: 20, samples: ['a/HOW_TO_DECRYPT.txt'] } };

    expect(checksOf(s3History(10, { 9: one }))).toEqual(['ransom_note_names:high']);
    expect(checksOf(s3History(10, { 9: spread }))).toEqual(['ransom_note_names:critical']);
    expect(checksOf(s3History(10, { 9: one }), resolveThresholds({ ransomNoteMinFiles: 2 }))).toEqual([]);
  });
});

describe('exposure', () => {
  it('flags every public EBS snapshot and the unencrypted ones once per volume', () => {
    const history: SourceHistory = {
      ...s3History(1),
      source: 'ebs:eu-west-1:vol-049df61146c4d7901',
      kind: 'ebs',
      region: 'eu-west-1',
      resource: 'vol-049df61146c4d7901',
      snapshots: [
        {
          id: 'ebs:eu-west-1:snap-0000000000000000a',
          name: 'snap-0000000000000000a',
          timeMs: NOW - DAY,
          encrypted: false,
          public: true,
        },
        {
          id: 'ebs:eu-west-1:snap-0000000000000000b',
          name: 'snap-0000000000000000b',
          timeMs: NOW - 3_600_000,
          encrypted: false,
          public: false,
        },
      ],
      steps: [],
      expectedIntervalHours: 24,
    };

    const findings = computeFindings(history, DEFAULT_THRESHOLDS, NOW).findings;

    expect(findings.map((f) => `${f.check}:${f.severity}:${f.snapshot}`)).toEqual([
      'public_snapshot:critical:ebs:eu-west-1:snap-0000000000000000a',
      'unencrypted_snapshot:medium:null',
    ]);
    expect(findings[0]?.verify[0]).toContain(
      'describe-snapshot-attribute --snapshot-id snap-0000000000000000a',
    );
    expect(findings[1]?.evidence).toMatchObject({
      unencryptedSnapshots: 2,
      latest: 'ebs:eu-west-1:snap-0000000000000000b',
    });
  });

  it('flags an inventory whose destination bucket is public', () => {
    expect(checksOf(s3History(10, {}, { publicDestination: 'inventory-dest' }))).toEqual([
      'public_snapshot:critical',
    ]);
  });
});

describe('snapshots stopped', () => {
  it('fires when the newest snapshot is older than two expected intervals', () => {
    const history = s3History(10);

    expect(checksOf(history, DEFAULT_THRESHOLDS, NOW + 2 * DAY)).toEqual(['snapshots_stopped:high']);
    expect(checksOf(history, DEFAULT_THRESHOLDS, NOW + DAY)).toEqual([]);
    expect(checksOf({ ...history, disabled: true })).toEqual(['snapshots_stopped:high']);
  });

  it('notes that it cannot tell without an expected interval', () => {
    const result = computeFindings(
      { ...s3History(1), expectedIntervalHours: null },
      DEFAULT_THRESHOLDS,
      NOW + 30 * DAY,
    );

    expect(result.findings).toEqual([]);
    expect(result.notes[0]).toContain('usual interval is unknown');
  });
});

describe('finding ids', () => {
  it('are the same for the same history and differ by snapshot and extension', () => {
    const spike = {
      9: { newBytes: 4 * GIB, newUnits: 700, extensions: [figure('qkr7', 650, 0), figure('zzz9', 600, 0)] },
    };
    const once = computeFindings(s3History(10, spike), DEFAULT_THRESHOLDS, NOW).findings.map((f) => f.id);
    const again = computeFindings(s3History(10, spike), DEFAULT_THRESHOLDS, NOW).findings.map((f) => f.id);

    expect(again).toEqual(once);
    expect(new Set(once).size).toBe(once.length);
    expect(once.every((id) => /^[a-z_]+:[0-9a-f]{16}$/.test(id))).toBe(true);
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});
