/**
 * Continuation cursors of vendor families (`crm_*`, `ats_*`): the paginator's
 * cursor (`PageRead.next`) prefixed with the provider that gave it, so a cursor
 * of one vendor handed to a tenant now on another is refused before any request.
 */
import { InvalidArgsError } from '../errors';

/**
 * `<provider>:<cursor>`, or null at the end.
 *
 * @example providerCursor('hubspot', '200') // 'hubspot:200'
 */
export function providerCursor(provider: string, next: string | null): string | null {
  return next === null ? null : `${provider}:${next}`;
}

/**
 * The paginator's cursor inside a family cursor of `provider`.
 *
 * @throws InvalidArgsError when the cursor names no provider or another one.
 * @example resumeFrom('hubspot', 'hubspot:200') // '200'
 */
export function resumeFrom(provider: string, cursor: string): string {
  const colon = cursor.indexOf(':');
  const named = colon < 0 ? '' : cursor.slice(0, colon);
  if (named !== provider) {
    throw new InvalidArgsError(
      named
        ? `cursor was returned for ${named}, but the tenant's secret now names ${provider}: start again without cursor`
        : 'cursor is not one this tool returned (it starts with the provider, such as "hubspot:")',
    );
  }
  return cursor.slice(colon + 1);
}
