import { looksLikeRansomNote } from '../../../../functions/tools/snapshots/findings/ransomware';
import {
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
