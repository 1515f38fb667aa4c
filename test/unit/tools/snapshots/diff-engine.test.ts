import {
  type DiffContext,
  ReportComparer,
  ReportCounter,
  ReportIndexBuilder,
} from '../../../../functions/tools/snapshots/index/diff-engine';
import { ExtensionTable } from '../../../../functions/tools/snapshots/index/extensions';
import { newHashSeed } from '../../../../functions/tools/snapshots/index/key-hash';
import { textRow } from '../../../helpers/inventory-fixtures';

type Row = [
  key: string,
  versionId: string,
  isDeleteMarker: boolean,
  size: number,
  lastModifiedMs: number,
  eTag: string,
];

function context(overrides: Partial<DiffContext> = {}): DiffContext {
  return {
    seed: newHashSeed(),
    extensions: new ExtensionTable(),
    sampleSize: 10,
    compareLastModified: true,
    compareETag: true,
    useVersionIds: false,
    ...overrides,
  };
}

function compare(older: Row[], newer: Row[], ctx = context()) {
  const index = new ReportIndexBuilder(ctx);
  for (const row of older) index.row(textRow(...row));
  index.seal();
  const comparer = new ReportComparer(ctx, index);
  for (const row of newer) comparer.row(textRow(...row));
  return comparer.finish();
}

const T = Date.UTC(2026, 2, 1);

describe('ReportComparer', () => {
  it('tells added, removed, changed (size, time or ETag) and unchanged objects apart', () => {
    const older: Row[] = [
      ['same.txt', '', false, 10, T, 'e1'],
      ['bigger.txt', '', false, 10, T, 'e2'],
      ['touched.txt', '', false, 10, T, 'e3'],
      ['rewritten.txt', '', false, 10, T, 'e4'],
      ['gone.pdf', '', false, 50, T, 'e5'],
    ];
    const newer: Row[] = [
      ['same.txt', '', false, 10, T, 'e1'],
      ['bigger.txt', '', false, 20, T, 'e2'],
      ['touched.txt', '', false, 10, T + 1000, 'e3'],
      ['rewritten.txt', '', false, 10, T, 'e4-new'],
      ['new.jpg', '', false, 70, T, 'e6'],
    ];

    const figures = compare(older, newer);

    expect(figures.unchanged).toEqual({ count: 1, bytes: 10 });
    expect(figures.changed.count).toBe(3);
    expect(figures.changed.bytes).toBe(40);
    expect(figures.changedBytesBefore).toBe(30);
    expect(figures.changed.sample.objects().map((o) => o.key)).toEqual([
      'bigger.txt',
      'rewritten.txt',
      'touched.txt',
    ]);
    expect(figures.added.sample.objects()).toEqual([
      { key: 'new.jpg', size: 70, lastModified: '2026-03-01T00:00:00.000Z' },
    ]);
    expect(figures.removed).toMatchObject({
      count: 1,
      bytes: 50,
      samples: [{ key: 'gone.pdf', size: 50, lastModified: '2026-03-01T00:00:00.000Z' }],
    });
    expect(figures.older).toEqual({ objects: 5, bytes: 90, deleteMarkers: 0 });
    expect(figures.newer).toEqual({ objects: 5, bytes: 120, deleteMarkers: 0 });
  });

  it('ignores attributes one report does not list', () => {
    const figures = compare(
      [['a.txt', '', false, 10, T, 'e1']],
      [['a.txt', '', false, 10, T + 5000, 'other']],
      context({ compareLastModified: false, compareETag: false }),
    );

    expect(figures.unchanged.count).toBe(1);
    expect(figures.changed.count).toBe(0);
  });

  it('identifies versions by key and version id: an overwrite adds a version, a deletion adds a delete marker', () => {
    const ctx = context({ useVersionIds: true });
    const older: Row[] = [
      ['doc.txt', 'v1', false, 10, T, 'e1'],
      ['old.txt', 'v9', false, 5, T, 'e9'],
    ];
    const newer: Row[] = [
      ['doc.txt', 'v1', false, 10, T, 'e1'],
      ['doc.txt', 'v2', false, 12, T + 1, 'e2'],
      ['old.txt', 'v9', false, 5, T, 'e9'],
      ['old.txt', 'dm1', true, 0, T + 2, ''],
    ];

    const figures = compare(older, newer, ctx);

    expect(figures.added.count).toBe(1);
    expect(figures.added.sample.objects()).toEqual([
      { key: 'doc.txt', versionId: 'v2', size: 12, lastModified: expect.any(String) },
    ]);
    expect(figures.unchanged.count).toBe(2);
    expect(figures.removed.count).toBe(0);
    expect(figures.deleteMarkersAdded).toEqual({
      count: 1,
      samples: [{ key: 'old.txt', versionId: 'dm1', size: 0, lastModified: expect.any(String) }],
    });
    expect(figures.newer).toEqual({ objects: 3, bytes: 27, deleteMarkers: 1 });
  });

  it('counts a key of the older report that the newer lists again in its totals only: it is not added', () => {
    const figures = compare(
      [['a.txt', '', false, 1, T, 'e']],
      [
        ['a.txt', '', false, 1, T, 'e'],
        ['a.txt', '', false, 1, T, 'e'],
        ['a.txt', '', false, 1, T, 'e'],
        ['b.txt', '', false, 2, T, 'f'],
      ],
    );

    expect(figures.unchanged.count).toBe(1);
    expect(figures.added.count).toBe(1);
    expect(figures.added.bytes).toBe(2);
    expect(figures.changed.count).toBe(0);
    expect(figures.repeatedRows).toBe(2);
    expect(figures.newer).toEqual({ objects: 4, bytes: 5, deleteMarkers: 0 });
  });

  it('keeps evidence: files per extension, samples per extension, ransom-note-like names and their folders', () => {
    const older: Row[] = Array.from({ length: 20 }, (_, i) => [`docs/f${i}.pdf`, '', false, 1, T, `e${i}`]);
    const newer: Row[] = [
      ...older.slice(0, 10),
      ...Array.from(
        { length: 10 },
        (_, i): Row => [`docs/f${i + 10}.pdf.locked`, '', false, 2, T + 1, `x${i}`],
      ),
      ['docs/HOW_TO_DECRYPT_FILES.txt', '', false, 3, T + 1, 'n1'],
      ['other/HOW_TO_DECRYPT_FILES.txt', '', false, 3, T + 1, 'n2'],
    ];
    const ctx = context();

    const figures = compare(older, newer, ctx);
    const locked = ctx.extensions.idOfRow(textRow('x.locked', '', false, 0, 0, ''));

    expect(figures.added.byExtension.filesOf(locked)).toBe(10);
    expect(figures.olderByExtension.filesOf(locked)).toBe(0);
    expect(
      figures.removed.byExtension.filesOf(ctx.extensions.idOfRow(textRow('x.pdf', '', false, 0, 0, ''))),
    ).toBe(10);
    expect(figures.samplesByExtension.get(locked)).toHaveLength(3);
    expect(figures.ransomNotes).toEqual({
      count: 2,
      folders: 2,
      samples: [
        expect.objectContaining({ key: 'docs/HOW_TO_DECRYPT_FILES.txt' }),
        expect.objectContaining({ key: 'other/HOW_TO_DECRYPT_FILES.txt' }),
      ],
    });
  });

  it("builds the newer report's index in the same pass when asked", () => {
    const ctx = context();
    const first = new ReportIndexBuilder(ctx);
    first.row(textRow('a.txt', '', false, 1, T, 'e'));
    first.seal();
    const second = new ReportIndexBuilder(ctx);
    const comparer = new ReportComparer(ctx, first, second);
    comparer.row(textRow('a.txt', '', false, 1, T, 'e'));
    comparer.row(textRow('b.txt', '', false, 2, T, 'f'));
    comparer.finish();
    second.seal();
    const third = new ReportComparer(ctx, second);
    third.row(textRow('b.txt', '', false, 2, T, 'f'));

    const figures = third.finish();

    expect(second.totals()).toEqual({ objects: 2, bytes: 3, deleteMarkers: 0 });
    expect(figures.removed.samples.map((o) => o.key)).toEqual(['a.txt']);
    expect(figures.unchanged.count).toBe(1);
  });
});

describe('ReportCounter', () => {
  it('counts objects, bytes and delete markers by extension', () => {
    const extensions = new ExtensionTable();
    const counter = new ReportCounter(extensions);
    counter.row(textRow('a.pdf', '', false, 10, Number.NaN, ''));
    counter.row(textRow('b.pdf', '', false, 5, Number.NaN, ''));
    counter.row(textRow('c.pdf', 'dm', true, 0, Number.NaN, ''));

    expect(counter.totals()).toEqual({ objects: 2, bytes: 15, deleteMarkers: 1 });
    expect(counter.byExtension.filesOf(extensions.idOfRow(textRow('x.pdf', '', false, 0, 0, '')))).toBe(2);
  });
});
