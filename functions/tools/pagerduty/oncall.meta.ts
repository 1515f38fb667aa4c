import * as z from 'zod/mini';
import { defineToolSpec } from '../../runtime/spec';
import { PAGERDUTY_READ_SETTINGS, pagerdutyId } from './schemas';

/** `pagerduty_oncall`: who is on call now for schedules or escalation policies. */
export const pagerdutyOncallSpec = defineToolSpec({
  name: 'pagerduty_oncall',
  tokenScopes: { pagerduty: ['oncalls.read'] },
  description:
    'Who is on call now in PagerDuty for the given schedules and/or escalation policies: per entry the user ' +
    '(id and name), the schedule, the escalation policy, the escalation level and the shift start and end. ' +
    'Never returns contact methods (e-mail, phone).',
  inputSchema: () =>
    z
      .strictObject({
        schedule_ids: z.optional(z.array(pagerdutyId('A schedule')).check(z.minLength(1), z.maxLength(25))),
        escalation_policy_ids: z.optional(
          z.array(pagerdutyId('An escalation policy')).check(z.minLength(1), z.maxLength(25)),
        ),
      })
      .check(
        z.refine<{ schedule_ids?: string[] | undefined; escalation_policy_ids?: string[] | undefined }>(
          (a) => a.schedule_ids !== undefined || a.escalation_policy_ids !== undefined,
          'give schedule_ids, escalation_policy_ids, or both',
        ),
      ),
  ...PAGERDUTY_READ_SETTINGS,
});
