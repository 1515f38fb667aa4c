import {
  enumKey,
  serviceEnum,
  type UnrecognizedValues,
  unrecognizedNote,
} from '../../../../../functions/tools/aws/shared/service-enums';

describe('enumKey()', () => {
  it('reads SDK, wire and hyphenated spellings the same', () => {
    expect(enumKey('OVER_PROVISIONED')).toBe(enumKey('Overprovisioned'));
    expect(enumKey('VERY_LOW')).toBe(enumKey('VeryLow'));
    expect(enumKey('shutting-down')).toBe(enumKey('SHUTTING_DOWN'));
    expect(enumKey('CPU_OVER_PROVISIONED')).toBe(enumKey('CPUOverprovisioned'));
    expect(enumKey(' in-use ')).toBe('inuse');
  });

  it('keeps different values apart', () => {
    expect(enumKey('Overprovisioned')).not.toBe(enumKey('Underprovisioned'));
    expect(enumKey('NotOptimized')).not.toBe(enumKey('Optimized'));
  });
});

describe('serviceEnum()', () => {
  const finding = serviceEnum('finding', [
    'Overprovisioned',
    'Underprovisioned',
    'Optimized',
    'NotOptimized',
  ] as const);

  it('answers the canonical (SDK) spelling for any case and separators', () => {
    expect(finding.parse('OVER_PROVISIONED')).toBe('Overprovisioned');
    expect(finding.parse('under-provisioned')).toBe('Underprovisioned');
    expect(finding.parse('NOT_OPTIMIZED')).toBe('NotOptimized');
    expect(finding.parse('Optimized')).toBe('Optimized');
    expect(finding.is('OPTIMIZED', 'Optimized')).toBe(true);
    expect(finding.is('NOT_OPTIMIZED', 'Optimized')).toBe(false);
  });

  it('counts a value it does not know under field:value, and not an absent one', () => {
    // Prepare
    const seen: UnrecognizedValues = {};

    // Act
    const results = [
      finding.parse('RIGHT_SIZED', seen),
      finding.parse('RIGHT_SIZED', seen),
      finding.parse(undefined, seen),
      finding.parse('', seen),
      finding.parse(null, seen),
    ];

    // Assess
    expect(results).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(seen).toEqual({ 'finding:RIGHT_SIZED': 2 });
    expect(unrecognizedNote(seen)).toBe('; unrecognized values: finding:RIGHT_SIZED (2)');
    expect(unrecognizedNote({})).toBe('');
  });

  it('refuses an enum whose values read the same', () => {
    expect(() => serviceEnum('State', ['in-use', 'IN_USE'] as const)).toThrow(
      /"in-use" and "IN_USE" read the same/,
    );
  });
});
