import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { awsClientConfig } from '../../../runtime/aws/client-config';
import type { AwsAccess } from '../../../runtime/aws/credentials';
import { InvalidArgsError, PlatformError } from '../../../runtime/errors';
import type { ArgsViolation } from '../../../runtime/schema-violations';
import { roundCents } from '../../../runtime/text';

/**
 * Cost Explorer has one endpoint, `ce.us-east-1.amazonaws.com`, whatever regions
 * the account uses (AWS Billing and Cost Management API reference, "Cost Explorer
 * endpoints"; docs/design.md, "Hard limits").
 */
export const COST_EXPLORER_REGION = 'us-east-1';

/**
 * Price of one Cost Explorer API request, paginated requests each counting, in
 * USD (AWS Cost Explorer pricing, "Cost Explorer API: $0.01 per paginated API
 * request", read 2026-11).
 */
export const COST_EXPLORER_REQUEST_USD = 0.01;

/**
 * A Cost Explorer client for the tenant, always in {@link COST_EXPLORER_REGION}
 * (the tenant's own region is ignored: there is no other endpoint).
 */
export function costExplorerClient(access: AwsAccess): CostExplorerClient {
  return new CostExplorerClient(awsClientConfig(access, COST_EXPLORER_REGION));
}

/** What a run spent on Cost Explorer: requests answered and their price. */
export interface CostExplorerUsage {
  /** Requests Cost Explorer answered (one per page). */
  readonly requests: number;
  /** `requests` × {@link COST_EXPLORER_REQUEST_USD}, USD. */
  readonly estimatedCostUsd: number;
}

/** The price of `requests` Cost Explorer requests. */
export function costExplorerUsage(requests: number): CostExplorerUsage {
  return { requests, estimatedCostUsd: roundCents(requests * COST_EXPLORER_REQUEST_USD) };
}

// ---------------------------------------------------------------------------
// Periods of whole UTC days, inclusive at both ends.

/** A period of whole UTC days, `start` and `end` both included. */
export interface InclusivePeriod {
  /** First day, `YYYY-MM-DD`. */
  readonly start: string;
  /** Last day, `YYYY-MM-DD`, included. */
  readonly end: string;
  /** Days in the period, both ends counted (`2026-03-01`..`2026-03-31` is 31). */
  readonly days: number;
}

const DAY_MS = 86_400_000;

function epochDay(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Today's date in UTC, the calendar Cost Explorer uses. */
export function utcToday(now: number = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** `date` moved by `days` (negative: back). @example addDays('2026-02-28', 1) // '2026-03-01' */
export function addDays(date: string, days: number): string {
  return dateOf(epochDay(date) + days);
}

/** Limits {@link inclusivePeriod} checks, besides `start <= end <= today`. */
export interface PeriodLimits {
  /** Today, `YYYY-MM-DD` UTC: the last day a period may include. */
  readonly today: string;
  /** Longest period accepted, in days. */
  readonly maxDays: number;
  /** Oldest `start` accepted, in days before today, when the data has a retention. */
  readonly maxAgeDays?: number;
  /** Why `maxAgeDays` exists, appended to its violation (`Cost Explorer keeps anomalies 90 days`). */
  readonly maxAgeReason?: string;
  /** When both dates are omitted: the period of `defaultDays` days ending on `defaultEnd`. */
  readonly defaultDays: number;
  readonly defaultEnd: string;
}

/**
 * Validates a period given as inclusive dates (already `YYYY-MM-DD` calendar
 * dates from the schema) and returns it with its length. Both omitted means the
 * default period; one without the other is rejected so a caller never gets a
 * period it did not mean.
 *
 * @throws InvalidArgsError (`invalid_args`) with `details.violations` (`{ path, message }`,
 *   as the schema's own) when `start > end`, `end` is after today, the period is longer
 *   than `maxDays` or `start` is older than `maxAgeDays`. Thrown before any AWS call.
 * @example
 * inclusivePeriod('2026-03-01', '2026-03-31', { today: '2026-04-02', maxDays: 366, defaultDays: 30, defaultEnd: '2026-04-01' });
 * // { start: '2026-03-01', end: '2026-03-31', days: 31 }
 */
export function inclusivePeriod(
  start: string | undefined,
  end: string | undefined,
  limits: PeriodLimits,
): InclusivePeriod {
  if (start === undefined && end === undefined) {
    return {
      start: addDays(limits.defaultEnd, 1 - limits.defaultDays),
      end: limits.defaultEnd,
      days: limits.defaultDays,
    };
  }
  if (start === undefined || end === undefined) {
    const missing = start === undefined ? 'start' : 'end';
    throw invalidPeriod([
      {
        path: missing,
        message: `give both start and end (inclusive dates), or neither for the default period`,
      },
    ]);
  }
  const days = epochDay(end) - epochDay(start) + 1;
  const violations: ArgsViolation[] = [];
  if (days < 1) {
    violations.push({
      path: 'end',
      message: `end (${end}) is before start (${start}); both dates are included`,
    });
  }
  if (end > limits.today) {
    violations.push({ path: 'end', message: `end (${end}) is after today (${limits.today}, UTC)` });
  }
  if (days > limits.maxDays) {
    violations.push({
      path: 'start',
      message: `the period spans ${days} days; at most ${limits.maxDays} are accepted`,
    });
  }
  if (limits.maxAgeDays !== undefined && start < addDays(limits.today, -limits.maxAgeDays)) {
    violations.push({
      path: 'start',
      message: `start (${start}) is more than ${limits.maxAgeDays} days before today (${limits.today})${limits.maxAgeReason ? `: ${limits.maxAgeReason}` : ''}`,
    });
  }
  if (violations.length > 0) throw invalidPeriod(violations);
  return { start, end, days };
}

function invalidPeriod(violations: ArgsViolation[]): InvalidArgsError {
  return new InvalidArgsError(
    `Invalid period: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
    {
      details: { violations },
    },
  );
}

/** The period of equal length just before `period` (`2026-03-01`..`31` → `2026-01-29`..`2026-02-28`). */
export function previousPeriod(period: InclusivePeriod): InclusivePeriod {
  return { start: addDays(period.start, -period.days), end: addDays(period.start, -1), days: period.days };
}

/**
 * GetCostAndUsage's `TimePeriod`: `Start` included, `End` excluded (Cost Explorer
 * API reference, "DateInterval"), so the inclusive end moves one day on.
 */
export function costAndUsageTimePeriod(period: InclusivePeriod): { Start: string; End: string } {
  return { Start: period.start, End: addDays(period.end, 1) };
}

/** Turns GetCostAndUsage's exclusive `End` back into the last included day. */
export function inclusiveEnd(exclusiveEnd: string): string {
  return addDays(exclusiveEnd, -1);
}

// ---------------------------------------------------------------------------
// Exact amounts. Cost Explorer sends amounts as decimal strings ("1234.5678901234");
// summing them as binary floats drifts, so they are summed as integers of 10^-12.

/** Decimal places kept from Cost Explorer amounts: 10^-12 of the currency unit. */
export const AMOUNT_SCALE = 12;

const SCALE = 10n ** BigInt(AMOUNT_SCALE);
const CENT = SCALE / 100n;
const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/;

/**
 * Parses a Cost Explorer `MetricValue.Amount` exactly, as an integer count of
 * 10^-12 units (digits beyond 12 decimals are cut; they never reach a cent).
 *
 * @throws PlatformError (`upstream_error`) when the amount is missing or not a decimal:
 *   an unreadable amount is never taken as 0.
 * @example parseCostAmount('12.345') // 12345000000000n
 */
export function parseCostAmount(text: string | undefined): bigint {
  const match = text === undefined ? null : DECIMAL.exec(text.trim());
  const [, sign, whole = '', fraction = '', exponent = '0'] = match ?? [];
  if (!match || whole.length + fraction.length === 0) {
    throw new PlatformError(
      'upstream_error',
      `Cost Explorer answered an amount that is not a number: "${text}"`,
      {
        service: 'ce',
      },
    );
  }
  const digits = BigInt(`${whole}${fraction}` || '0');
  const shift = Number(exponent) - fraction.length + AMOUNT_SCALE;
  const scaled = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  return sign === '-' ? -scaled : scaled;
}

/** An exact amount rounded to cents, half away from zero. @example toCents(12345000000000n) // 12.35 */
export function toCents(amount: bigint): number {
  const magnitude = amount < 0n ? -amount : amount;
  const cents = magnitude / CENT + (2n * (magnitude % CENT) >= CENT ? 1n : 0n);
  return (amount < 0n ? -Number(cents) : Number(cents)) / 100;
}

/** A change between two periods' amounts. */
export interface AmountChange {
  /** `current - previous`, rounded to cents. */
  readonly absolute: number;
  /** The change in percent of `previous`, 2 decimals; `null` when `previous` is 0 (no base to compare with). */
  readonly percent: number | null;
}

/** The change from `previous` to `current`, both exact amounts. */
export function amountChange(current: bigint, previous: bigint): AmountChange {
  const difference = current - previous;
  return {
    absolute: toCents(difference),
    percent: previous === 0n ? null : Math.round((Number(difference) / Number(previous)) * 10_000) / 100,
  };
}
