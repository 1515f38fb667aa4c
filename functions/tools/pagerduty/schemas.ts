/**
 * Argument schemas and settings shared by the PagerDuty tools' spec files (zod/mini, no client).
 */
import * as z from 'zod/mini';

/** What the PagerDuty read tools declare besides name, description and schema. */
export const PAGERDUTY_READ_SETTINGS = {
  tags: ['pagerduty', 'read_only'],
  service: 'pagerduty',
  requiresSecrets: ['pagerduty_default'],
  sideEffects: 'none',
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
} as const;

/** Object ids PagerDuty issues (`PT4KHLK`, `Q02JTSNZWHSEKV`): capital letters and digits. */
export const pagerdutyId = (what: string) =>
  z
    .string()
    .check(z.regex(/^[A-Z0-9]{5,20}$/, `${what} ID such as PT4KHLK`), z.describe(`${what} ID (PT4KHLK).`));
