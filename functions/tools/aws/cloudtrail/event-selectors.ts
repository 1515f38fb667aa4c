import type {
  AdvancedEventSelector,
  EventSelector,
  GetEventSelectorsResponse,
} from '@aws-sdk/client-cloudtrail';
import { enumKey, serviceEnum, type UnrecognizedValues } from '../shared/service-enums';

/** EventSelector `ReadWriteType` (CloudTrail API reference, "EventSelector"). */
const READ_WRITE_TYPE = serviceEnum('ReadWriteType', ['ReadOnly', 'WriteOnly', 'All'] as const);

/** Which management events a trail logs, from its event selectors. */
export interface ManagementEventCoverage {
  /** Read-only API activity (Describe*, Get*, List*…). */
  readonly read: boolean;
  /** Mutating API activity. */
  readonly write: boolean;
  /** The kind of selectors the trail uses: a trail has basic or advanced selectors, never both. */
  readonly selectors: 'basic' | 'advanced' | 'none';
  /** Event sources left out of management events (`kms.amazonaws.com`, `rdsdata.amazonaws.com`). */
  readonly excludedSources: string[];
}

/**
 * Basic selectors: `IncludeManagementEvents` defaults to true and `ReadWriteType`
 * to `All` (CloudTrail API reference, "EventSelector"). A type this tool does not
 * know is counted as unrecognized and credited with nothing: coverage is never
 * claimed on a guess.
 */
function fromBasic(
  selectors: readonly EventSelector[],
  unrecognized?: UnrecognizedValues,
): ManagementEventCoverage {
  const management = selectors.filter((s) => s.IncludeManagementEvents !== false);
  const types = management.map((s) =>
    s.ReadWriteType === undefined ? 'All' : READ_WRITE_TYPE.parse(s.ReadWriteType, unrecognized),
  );
  return {
    read: types.some((t) => t === 'All' || t === 'ReadOnly'),
    write: types.some((t) => t === 'All' || t === 'WriteOnly'),
    selectors: 'basic',
    excludedSources: [...new Set(management.flatMap((s) => s.ExcludeManagementEventSources ?? []))],
  };
}

/**
 * Advanced selectors: a selector logs management events when its `eventCategory`
 * field equals `Management`; its `readOnly` field (`Equals`/`NotEquals` `true` or
 * `false`) narrows it to reads or writes, and without one it logs both; `eventSource`
 * `NotEquals` leaves sources out (CloudTrail API reference, "AdvancedFieldSelector").
 */
function fromAdvanced(selectors: readonly AdvancedEventSelector[]): ManagementEventCoverage {
  let read = false;
  let write = false;
  const excluded = new Set<string>();
  const has = (values: readonly string[] | undefined, value: string) =>
    (values ?? []).some((v) => enumKey(v) === enumKey(value));
  for (const selector of selectors) {
    const field = (name: string) =>
      selector.FieldSelectors?.find((f) => enumKey(f.Field ?? '') === enumKey(name));
    if (!has(field('eventCategory')?.Equals, 'Management')) continue;
    const readOnly = field('readOnly');
    const logs = (value: 'true' | 'false') =>
      readOnly === undefined ||
      (readOnly.Equals ? has(readOnly.Equals, value) : !has(readOnly.NotEquals, value));
    read ||= logs('true');
    write ||= logs('false');
    for (const source of field('eventSource')?.NotEquals ?? []) excluded.add(source);
  }
  return { read, write, selectors: 'advanced', excludedSources: [...excluded] };
}

/**
 * Which management events a trail logs, from GetEventSelectors' answer.
 *
 * @example
 * managementEventCoverage({ EventSelectors: [{ ReadWriteType: 'WriteOnly', IncludeManagementEvents: true }] })
 * // => { read: false, write: true, selectors: 'basic', excludedSources: [] }
 */
export function managementEventCoverage(
  response: GetEventSelectorsResponse,
  unrecognized?: UnrecognizedValues,
): ManagementEventCoverage {
  if (response.AdvancedEventSelectors?.length) return fromAdvanced(response.AdvancedEventSelectors);
  if (response.EventSelectors?.length) return fromBasic(response.EventSelectors, unrecognized);
  return { read: false, write: false, selectors: 'none', excludedSources: [] };
}
