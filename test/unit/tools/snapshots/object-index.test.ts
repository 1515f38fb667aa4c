import { hashIdentity, newHashSeed } from '../../../../functions/tools/snapshots/index/key-hash';
import { ObjectIndex } from '../../../../functions/tools/snapshots/index/object-index';
import { InventoryRow } from '../../../../functions/tools/snapshots/inventory/rows';
import { seededRandom, textRow } from '../../../helpers/inventory-fixtures';

/** `count` random 64-bit hashes as [hi, lo], drawn from a seeded generator. */
function randomHashes(count: number, seed: number): [number, number][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => [(random() * 2 ** 32) >>> 0, (random() * 2 ** 32) >>> 0]);
}

describe('ObjectIndex', () => {
  it('finds every entry added, with its size, fingerprint and extension', () => {
    const hashes = randomHashes(50_000, 1);
    const index = new ObjectIndex();
    hashes.forEach(([hi, lo], i) => {
      index.add(hi, lo, i * 3, i ^ 0x5555, i % 7);
    });
    index.seal();

    const wrong = hashes.filter(([hi, lo], i) => {
      const handle = index.find(hi, lo);
      return (
        handle < 0 ||
        index.sizeOf(handle) !== i * 3 ||
        index.fingerprintOf(handle) !== (i ^ 0x5555) ||
        index.extensionOf(handle) !== i % 7
      );
    });
    expect(index.count).toBe(50_000);
    expect(wrong).toEqual([]);
  });

  it('answers -1 for hashes never added, including ones sharing the high half', () => {
    const index = new ObjectIndex();
    index.add(0xdeadbeef, 1, 10, 0, 0);
    index.add(0xdeadbeef, 3, 30, 0, 0);
    index.seal();

    expect(index.find(0xdeadbeef, 2)).toBe(-1);
    expect(index.find(0x00000001, 1)).toBe(-1);
    expect(index.sizeOf(index.find(0xdeadbeef, 3))).toBe(30);
  });

  it('sorts runs of equal high halves by the low half (radix sort down to the last byte)', () => {
    const index = new ObjectIndex();
    const lows = randomHashes(5_000, 2).map(([, lo]) => lo);
    for (const lo of lows) index.add(0x12345678, lo, lo, 0, 0);
    index.seal();

    expect(lows.every((lo) => index.sizeOf(index.find(0x12345678, lo)) === lo)).toBe(true);
  });

  it('matches repeated identities one to one, then reports the leftovers as unmarked', () => {
    const index = new ObjectIndex();
    index.add(7, 7, 100, 0, 1);
    index.add(7, 7, 200, 0, 1);
    index.add(9, 9, 300, 0, 2);
    index.seal();

    const first = index.find(7, 7);
    index.mark(first);
    const second = index.find(7, 7);
    index.mark(second);
    const third = index.find(7, 7);
    const left: [number, number][] = [];
    index.forEachUnmarked((size, extension) => left.push([size, extension]));

    expect(second).not.toBe(first);
    expect(index.isMarked(third)).toBe(true);
    expect(left).toEqual([[300, 2]]);
  });

  it("keeps sizes exact up to S3's largest object (5 TiB) and beyond 2^32", () => {
    const index = new ObjectIndex();
    const sizes = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 5 * 2 ** 40 + 123, 2 ** 47];
    sizes.forEach((size, i) => {
      index.add(i + 1, i + 1, size, 0, 0);
    });
    index.seal();
    const unmarked: number[] = [];
    index.forEachUnmarked((size) => unmarked.push(size));

    expect(sizes.map((_, i) => index.sizeOf(index.find(i + 1, i + 1)))).toEqual(sizes);
    expect(unmarked.sort((a, b) => a - b)).toEqual(sizes);
  });

  it('refuses entries once sealed', () => {
    const index = new ObjectIndex();
    index.seal();

    expect(() => index.add(1, 1, 1, 1, 1)).toThrow('sealed');
  });

  it('holds 20 bytes per entry plus a matched bit once sealed', () => {
    const index = new ObjectIndex();
    for (const [hi, lo] of randomHashes(100_000, 3)) index.add(hi, lo, 1, 1, 1);
    index.seal();

    expect(index.byteSize()).toBeGreaterThanOrEqual(100_000 * 20 + 100_000 / 8);
    expect(index.byteSize()).toBeLessThan(100_000 * 20 + 100_000 / 8 + 256 * (1024 * 4 + 1));
  });
});

describe('hashIdentity', () => {
  it('is stable for one seed, differs across seeds, and separates the version id', () => {
    const seed = { a: 1, b: 2 };
    const h = (key: string, version = '', s = seed) => {
      const out = { hi: 0, lo: 0 };
      hashIdentity(s, textRow(key, version, false, 0, 0, ''), true, out);
      return `${out.hi}:${out.lo}`;
    };

    expect(h('photos/a.jpg')).toBe(h('photos/a.jpg'));
    expect(h('photos/a.jpg')).not.toBe(h('photos/a.jpg', '', { a: 3, b: 2 }));
    expect(h('photos/a.jpg', 'v1')).not.toBe(h('photos/a.jpg', 'v2'));
    expect(h('photos/a.jpg', 'v1')).not.toBe(h('photos/a.jpg'));
  });

  it('gives 200,000 distinct keys 200,000 distinct hashes', () => {
    const seed = newHashSeed();
    const seen = new Set<string>();
    const out = { hi: 0, lo: 0 };
    const row = textRow('', '', false, 0, 0, '');
    for (let i = 0; i < 200_000; i++) {
      hashIdentity(seed, row.setText(`dept-${i % 50}/file-${i}.pdf`, '', false, 0, 0, ''), false, out);
      seen.add(`${out.hi}:${out.lo}`);
    }

    expect(seen.size).toBe(200_000);
  });

  it('hashes the UTF-8 bytes: a key from text (CSV) and the same key as page bytes (Parquet) agree', () => {
    const seed = { a: 5, b: 9 };
    const key = 'fotos/café été/Straße №1.JPG';
    const fromText = { hi: 0, lo: 0 };
    hashIdentity(seed, textRow(key, 'v1', false, 0, 0, ''), true, fromText);
    const page = Buffer.concat([Buffer.from('xx'), Buffer.from(key), Buffer.from('v1')]);
    const row = new InventoryRow();
    row.keyBytes = page;
    row.keyStart = 2;
    row.keyEnd = 2 + Buffer.byteLength(key);
    row.versionBytes = page;
    row.versionStart = row.keyEnd;
    row.versionEnd = page.length;
    const fromBytes = { hi: 0, lo: 0 };
    hashIdentity(seed, row, true, fromBytes);

    expect(fromBytes).toEqual(fromText);
    expect(row.key()).toBe(key);
    expect(row.versionId()).toBe('v1');
  });
});
