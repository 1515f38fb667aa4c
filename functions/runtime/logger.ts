import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { redact } from './redact';

/**
 * Powertools' standard JSON log keys, with every log item passed through
 * `redact()`: no code path can log a secret, whatever it hands the logger.
 * (Powertools does not export its own formatter class to extend.)
 */
class RedactingLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const base: LogAttributes = {
      level: attributes.logLevel,
      message: attributes.message,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: attributes.lambdaContext?.coldStart,
      function_name: attributes.lambdaContext?.functionName,
      function_request_id: attributes.lambdaContext?.awsRequestId,
      xray_trace_id: attributes.xRayTraceId,
    };
    return new LogItem({ attributes: redact({ ...base, ...additional }) });
  }
}

/**
 * The platform's Powertools Logger, created once per container. The service name
 * comes from `POWERTOOLS_SERVICE_NAME` (set per function by the CDK), the level
 * from `POWERTOOLS_LOG_LEVEL` (default INFO; the CLI sets WARN).
 *
 * @example
 * logger.info('tool call', { tool: 'aws_ec2_inventory', args }); // args are redacted
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'external-tools',
  logFormatter: new RedactingLogFormatter(),
});
