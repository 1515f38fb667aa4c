import { looksLikeRansomNote } from '../../../../functions/tools/snapshots/findings/ransomware';
import {
  ByteSum,
  ExtensionCounts,
  ExtensionTable,
  extensionOf,
  histogram,
  NO_EXTENSION,
} from '../../../../functions/tools/snapshots/index/extensions';
import { BottomK, sampleRank } from '../../../../functions/tools/snapshots/index/key-sample';
import { textRow } from '../../../helpers/inventory-fixtures';

describe('extensionOf', () => {
  it.each([
    ['photos/2024/IMG_001.JPG', 'jpg'],
    ['docs/report.pdf.locked', 'locked'],
    ['archive.tar.gz', 'gz'],
    ['home/.bashrc', NO_EXTENSION],
    ['README', NO_EXTENSION],
    ['folder.v1/file', NO_EXTENSION],
    ['trailing.', NO_EXTENSION],
    ['notes.this-is-far-too-long-to-be-a-type', NO_EXTENSION],
    ['odd.ext with space', NO_EXTENSION],
  ])('%s → %s', (key, extension) => {
    expect(extensionOf(key)).toBe(extension);
  });
});

describe('ExtensionTable', () => {
  it('gives one id per extension whatever the case, and the same answers as extensionOf from its cache', () => {
    const table = new ExtensionTable();
    // Beyond ASCII too: the table reads UTF-8 bytes (a Kelvin sign lower-cases to "k").
    const keys = [
      'a/b.JPG',
      'c.jpg',
      'x/.hidden.jpg',
      'y/.jpg',
      'dir.jpg/file',
      'z.Jpg',
      'w.pdf',
      'v.jpeg',
      'café/résumé.PDF',
      'x.p\u212Ag',
      'y.pdé',
    ];

    const names = [...keys, ...keys].map((key) =>
      table.name(table.idOfRow(textRow(key, '', false, 0, 0, ''))),
    );

    expect(names).toEqual([...keys, ...keys].map(extensionOf));
    expect(table.idOfRow(textRow('a/b.JPG', '', false, 0, 0, ''))).toBe(
      table.idOfRow(textRow('c.jpg', '', false, 0, 0, '')),
    );
    expect(table.size).toBe(5); // jpg, (none), pdf, jpeg, pkg
  });
});

describe('histogram', () => {
  it('lists the top extensions by files and folds the rest into "(other)"', () => {
    const table = new ExtensionTable();
    const counts = new ExtensionCounts();
    for (const [key, times] of [
      ['a.pdf', 5],
      ['b.jpg', 3],
      ['c.txt', 2],
      ['d.csv', 1],
    ] as const) {
      for (let i = 0; i < times; i++) counts.add(table.idOfRow(textRow(key, '', false, 0, 0, '')), 10);
    }

    expect(histogram(counts, table, 2)).toEqual([
      { extension: 'pdf', files: 5, bytes: 50 },
      { extension: 'jpg', files: 3, bytes: 30 },
      { extension: '(other)', files: 3, bytes: 30 },
    ]);
  });
});

describe('BottomK', () => {
  it('keeps the k smallest ranks whatever the order offered, and returns them by key', () => {
    const offers = Array.from({ length: 100 }, (_, i) => ({
      rank: (i * 7919) % 100,
      key: `k${(i * 7919) % 100}`,
    }));
    const forward = new BottomK(5);
    const backward = new BottomK(5);
    for (const o of offers)
      forward.offer(o.rank, 1, 2, textRow(o.key, '', false, 1, Date.UTC(2026, 0, 1), ''));
    for (const o of [...offers].reverse())
      backward.offer(o.rank, 1, 2, textRow(o.key, '', false, 1, Number.NaN, ''));

    expect(forward.objects().map((o) => o.key)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(backward.objects().map((o) => o.key)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(forward.objects()[0]).toEqual({ key: 'k0', size: 1, lastModified: '2026-01-01T00:00:00.000Z' });
    expect(backward.objects()[0]?.lastModified).toBeNull();
    expect(forward.entries().every((e) => e.hi === 1 && e.lo === 2)).toBe(true);
    expect(forward.wouldKeep(50, textRow('k50', '', false, 0, 0, ''))).toBe(false);
    expect(forward.wouldKeep(3, textRow('k3b', '', false, 0, 0, ''))).toBe(true);
  });

  it('breaks rank ties by key, so the sample does not depend on arrival order', () => {
    const a = new BottomK(2);
    const b = new BottomK(2);
    for (const key of ['c', 'a', 'b']) a.offer(7, 0, 0, textRow(key, '', false, 1, 0, ''));
    for (const key of ['b', 'c', 'a']) b.offer(7, 0, 0, textRow(key, '', false, 1, 0, ''));

    expect(a.objects().map((o) => o.key)).toEqual(['a', 'b']);
    expect(b.objects().map((o) => o.key)).toEqual(['a', 'b']);
  });

  it('ranks by a fixed hash: the same key, the same rank, on every run', () => {
    expect(sampleRank(textRow('photos/a.jpg', '', false, 0, 0, ''))).toBe(
      sampleRank(textRow('photos/a.jpg', '', false, 0, 0, '')),
    );
    expect(sampleRank(textRow('photos/a.jpg', 'v1', false, 0, 0, ''))).not.toBe(
      sampleRank(textRow('photos/a.jpg', 'v2', false, 0, 0, '')),
    );
    expect(sampleRank(textRow('photos/a.jpg', '', false, 0, 0, ''))).toBe(1515252977);
  });
});

describe('looksLikeRansomNote', () => {
  it.each([
    'finance/HOW_TO_DECRYPT_FILES.txt',
    'a/b/_readme.txt',
    'x/@Please_Read_Me@.txt',
    'x/Restore-My-Files.txt',
    'x/3r9zmtqz.README.txt',
    'x/README_TO_DECRYPT.html',
    'x/recover-a1b2c3-FILES.txt',
    'x/info.hta',
  ])('flags %s', (key) => {
    expect(looksLikeRansomNote(key)).toBe(true);
  });

  it.each(['docs/README.txt', 'docs/readme.md', 'how-to/install.txt', 'restore/plan.pdf', 'src/decrypt.ts'])(
    'leaves %s alone',
    (key) => {
      expect(looksLikeRansomNote(key)).toBe(false);
    },
  );
});

describe('ByteSum and ExtensionCounts: byte sums past 2^53', () => {
  const MAX = Number.MAX_SAFE_INTEGER;

  it('adds sizes up to 2^53 − 1 exactly, carrying past 2^53, and rounds once when read', () => {
    const sum = new ByteSum();
    sum.add(MAX);
    sum.add(MAX);
    sum.add(3);

    // 2^54 + 1 exactly, read as the nearest double (2^54).
    expect([sum.high, sum.low]).toEqual([2, 1]);
    expect(sum.value()).toBe(2 ** 54);
  });

  it('keeps each extension exact, and the (other) line of a histogram summed exactly', () => {
    const table = new ExtensionTable();
    const counts = new ExtensionCounts();
    const ids = ['a', 'b', 'c'].map((name) => table.idOfName(name));
    for (let i = 0; i < 2000; i++) for (const id of ids) counts.add(id, 4_999_999_999_999);

    expect(counts.bytesOf(ids[0] as number)).toBe(9_999_999_999_998_000);
    expect(counts.totalBytes).toBe(29_999_999_999_994_000);
    expect(histogram(counts, table, 1)).toEqual([
      { extension: 'a', files: 2000, bytes: 9_999_999_999_998_000 },
      { extension: '(other)', files: 4000, bytes: 19_999_999_999_996_000 },
    ]);
  });

  it('adds an exact total of any size (an Athena row) to what was counted', () => {
    const counts = new ExtensionCounts();
    counts.add(0, MAX);
    counts.addTotal(0, 2, 9_007_199_254_740_993n);

    expect([counts.bytesHigh[0], counts.bytesLow[0]]).toEqual([2, 0]);
    expect(counts.total).toBe(3);
    expect(counts.totalBytes).toBe(2 ** 54);
  });
});
