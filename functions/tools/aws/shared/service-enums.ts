/**
 * Service enum values as AWS answers them, read one way. The SDK typings spell a
 * value one way (`Overprovisioned`, `ReadOnly`, `shutting-down`) while the same
 * services answer other spellings on the wire: Compute Optimizer's own model
 * documentation says its responses use `OVER_PROVISIONED` / `UNDER_PROVISIONED`
 * / `OPTIMIZED` (`@aws-sdk/client-compute-optimizer`, `InstanceRecommendation.finding`).
 * A tool that compares with `===` then silently drops what it was asked to find.
 * Every enum a tool compares goes through {@link ServiceEnum}: case, `_`, `-`
 * and spaces are ignored, the canonical (SDK) spelling comes back, and a value
 * the tool does not know is counted under {@link UnrecognizedValues} instead of
 * being dropped.
 */

/**
 * Counts of values a tool could not recognize, by `<field>:<value as answered>`
 * (`{ "finding:RIGHT_SIZED": 2 }`). A stats map: it adds up over regions like
 * any other count.
 */
export type UnrecognizedValues = Record<string, number>;

/**
 * The comparison key of an enum value: lower case, without `_`, `-`, `.` or
 * whitespace.
 *
 * @example enumKey('OVER_PROVISIONED') === enumKey('Overprovisioned') // 'overprovisioned'
 * @example enumKey('shutting-down') // 'shuttingdown'
 */
export function enumKey(value: string): string {
  return value.replace(/[\s_.-]/g, '').toLowerCase();
}

/** One service enum: its field name (for reports) and the values the tool knows. */
export interface ServiceEnum<T extends string> {
  /** The response field, as unrecognized values are reported (`finding`, `State.Name`). */
  readonly field: string;
  /** The known values, in their canonical (SDK) spelling. */
  readonly values: readonly T[];
  /**
   * The canonical spelling of `raw`; `undefined` when `raw` is absent, empty, or
   * not a known value. An unknown value is counted in `unrecognized` (when
   * given) under `<field>:<raw>`; an absent one is not: absent is not unknown.
   */
  parse(raw: string | null | undefined, unrecognized?: UnrecognizedValues): T | undefined;
  /** Whether `raw` is `value`, whatever its case and separators. */
  is(raw: string | null | undefined, value: T): boolean;
}

/**
 * A {@link ServiceEnum} over `values` (canonical spellings, as the SDK types them).
 *
 * @throws Error when two values share a key: the enum would be ambiguous.
 * @example
 * const finding = serviceEnum('finding', ['Overprovisioned', 'Underprovisioned', 'Optimized'] as const);
 * finding.parse('OVER_PROVISIONED') // 'Overprovisioned'
 * const seen = {}; finding.parse('RIGHT_SIZED', seen) // undefined, seen = { 'finding:RIGHT_SIZED': 1 }
 */
export function serviceEnum<const T extends string>(field: string, values: readonly T[]): ServiceEnum<T> {
  const byKey = new Map<string, T>();
  for (const value of values) {
    const key = enumKey(value);
    const clash = byKey.get(key);
    if (clash !== undefined) throw new Error(`Enum ${field}: "${clash}" and "${value}" read the same`);
    byKey.set(key, value);
  }
  return {
    field,
    values,
    parse(raw, unrecognized) {
      if (raw === undefined || raw === null || raw.trim() === '') return undefined;
      const known = byKey.get(enumKey(raw));
      if (known === undefined && unrecognized) {
        const key = `${field}:${raw}`;
        unrecognized[key] = (unrecognized[key] ?? 0) + 1;
      }
      return known;
    },
    is(raw, value) {
      return raw !== undefined && raw !== null && enumKey(raw) === enumKey(value);
    },
  };
}

/** `; unrecognized values: finding:RIGHT_SIZED (2)`, or empty when every value was known. */
export function unrecognizedNote(unrecognized: UnrecognizedValues): string {
  const entries = Object.entries(unrecognized);
  if (entries.length === 0) return '';
  return `; unrecognized values: ${entries.map(([value, n]) => `${value} (${n})`).join(', ')}`;
}
