import { bodyMessage, field, iso, str } from '../../../../functions/runtime/http/json-fields';
import { recordsOf } from '../../../../functions/runtime/http/record-pages';

describe('json-fields', () => {
  it('reads a field only of an object, a string only when not empty', () => {
    // Act / Assess
    expect(field({ paging: { next: 'n' } }, 'paging')).toEqual({ next: 'n' });
    expect(field('text', 'length')).toBeUndefined();
    expect(field(null, 'message')).toBeUndefined();
    expect(str('abc')).toBe('abc');
    expect(str('')).toBeUndefined();
    expect(str(3)).toBeUndefined();
    expect(bodyMessage({ body: { message: 'Property values were not valid' } })).toBe(
      'Property values were not valid',
    );
    expect(bodyMessage({ body: 'not json' })).toBeUndefined();
  });

  it('reads instants as ISO strings, epoch ms as numbers or digits, and nothing else', () => {
    // Act / Assess
    expect(iso('2024-03-01T10:00:00+01:00')).toBe('2024-03-01T09:00:00.000Z');
    expect(iso(1_700_000_000_000)).toBe('2023-11-14T22:13:20.000Z');
    expect(iso('1700000000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(iso('yesterday')).toBeNull();
    expect(iso('')).toBeNull();
    expect(iso(null)).toBeNull();
  });
});

describe('recordsOf', () => {
  it('takes the array at the named field, or the body itself when unnamed, and nothing that is not an array', () => {
    // Act / Assess
    expect(recordsOf({ data: [{ id: 'a' }], next: 'x' }, 'data')).toEqual([{ id: 'a' }]);
    expect(recordsOf([{ id: 1 }, { id: 2 }])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(recordsOf({ results: { id: 'a' } }, 'results')).toEqual([]);
    expect(recordsOf({ data: [] })).toEqual([]);
  });
});
