import * as z from 'zod/mini';
import { calendarDateArg, topNArg } from './shared/arg-schemas';
import { defineAwsReadOnlySpec } from './shared/read-only-spec';

/** Cost Explorer keeps anomalies for 90 days (Cost Explorer API reference, "GetAnomalies"). */
export const COST_ANOMALIES_RETENTION_DAYS = 90;
/** Length of the default window (ending today, UTC), in days. */
export const COST_ANOMALIES_DEFAULT_DAYS = 30;

/** `aws_cost_anomalies`: Cost Anomaly Detection's anomalies over a window, with impact and root causes. */
export const costAnomaliesSpec = defineAwsReadOnlySpec({
  name: 'aws_cost_anomalies',
  description:
    'Cost anomalies found by AWS Cost Anomaly Detection (Cost Explorer GetAnomalies) whose last day falls in a ' +
    `window of inclusive UTC dates (start..end, within the last ${COST_ANOMALIES_RETENTION_DAYS} days, which is ` +
    `all AWS keeps; default: the ${COST_ANOMALIES_DEFAULT_DAYS} days ending today), optionally for one monitor ` +
    'and above a minimum total impact. Each anomaly is a finding with a stable id and a severity by its impact ' +
    '(high >= 1,000 USD, medium >= 100 USD, else low): total impact, actual and expected spend in USD, impact ' +
    'percent, dates, root causes (service, region, linked account and its name, usage type, contribution) and ' +
    'the feedback given (YES, NO, PLANNED_ACTIVITY or null). Returns counts plus the topN by impact. COST: every ' +
    'Cost Explorer request is billed USD 0.01; one call makes one request per page of anomalies ' +
    '(`costExplorer.requests`). Errors: opt_in_required when Cost Explorer is not enabled, data_unavailable ' +
    'when it has no data yet, throttled when rate limited. `truncated` is set when the page cap or deadline ' +
    'stopped it.',
  inputSchema: () =>
    z.strictObject({
      start: z
        .optional(calendarDateArg())
        .check(
          z.describe('First day of the window, included, YYYY-MM-DD (UTC). Give with end, or omit both.'),
        ),
      end: z
        .optional(calendarDateArg())
        .check(
          z.describe('Last day of the window, included, YYYY-MM-DD (UTC), not after today. Give with start.'),
        ),
      monitorArn: z
        .optional(
          z
            .string()
            .check(
              z.regex(
                /^arn:aws[a-z-]*:ce::\d{12}:anomalymonitor\/[\w-]+$/,
                'a Cost Anomaly Detection monitor ARN',
              ),
            ),
        )
        .check(
          z.describe(
            'Only anomalies of this monitor (arn:aws:ce::<account>:anomalymonitor/<id>). Default: all monitors.',
          ),
        ),
      minTotalImpact: z
        .optional(z.number().check(z.minimum(0)))
        .check(z.describe('Only anomalies whose total impact is at least this many USD.')),
      feedback: z
        .optional(z.enum(['YES', 'NO', 'PLANNED_ACTIVITY']))
        .check(z.describe('Only anomalies with this feedback. Default: any feedback, or none.')),
      topN: topNArg(20),
    }),
  service: 'ce',
  iam: [{ actions: ['ce:GetAnomalies'] }],
  runtime: { memorySizeMb: 256, timeoutSeconds: 60 },
});
