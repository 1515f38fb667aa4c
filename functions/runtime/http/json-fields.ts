/**
 * Reading fields of a vendor's JSON answer without trusting its shape: a field
 * of an object or nothing, a non-empty string or nothing, an instant as ISO
 * 8601 UTC or null. Shared by the REST connectors' record mappers and error tables.
 */

/** `value[name]` when `value` is an object (arrays included), otherwise undefined. */
export function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

/** `value` when it is a non-empty string, otherwise undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * An instant as ISO 8601 UTC, from an ISO string, epoch milliseconds (a number or
 * a string of digits: HubSpot, Lever), null when absent or unreadable.
 *
 * @example iso('1700000000000') // '2023-11-14T22:13:20.000Z'
 */
export function iso(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = typeof value === 'number' || /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The error message most vendors answer in a top-level `message` (HubSpot, Attio, Greenhouse, Lever). */
export function bodyMessage(answer: { readonly body: unknown }): string | undefined {
  return str(field(answer.body, 'message'));
}
