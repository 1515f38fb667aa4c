import type { RunStatus } from '../../functions/engine/run-completion';
/**
 * The `Run Completed` event every finished scenario run publishes on the
 * platform's event bus, so other services can react (a Slack digest, a ticket,
 * a Security Hub update): its schema, the Step Functions Task state that puts it
 * (the optimized EventBridge integration, `arn:aws:states:::events:putEvents`),
 * and the splice into today's state machine definition. The scenario engine
 * calls {@link runCompletedEventState} at each end of a run with its own paths
 * for status, summary and cost.
 */

/** The event's `source`: the platform's own (sources starting `aws.` are reserved for AWS). */
export const RUN_EVENT_SOURCE = 'external-tools-platform';

/** The event's `detail-type`. */
export const RUN_COMPLETED_DETAIL_TYPE = 'Run Completed';

/** The name of the Task state that publishes the event (stable, so local runners can route it). */
export const PUBLISH_RUN_COMPLETED_STATE = 'PublishRunCompleted';

/** Placeholder of the bus name in a definition, filled by CDK `definitionSubstitutions`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template literal
export const RUN_EVENT_BUS_PLACEHOLDER = '${RunEventBusName}';

/** How a run ended. */
export type { RunStatus };

/**
 * The `detail` of a `Run Completed` event (EventBridge caps a whole entry at
 * 256 KB: EventBridge user guide, "Amazon EventBridge quotas", PutEvents entry
 * size; the summary is one line, results stay in the run's workspace).
 */
export interface RunCompletedDetail {
  /** Tenant id of the run. */
  readonly tenant: string;
  /** Scenario name. */
  readonly scenario: string;
  /** The run id (the execution name). */
  readonly runId: string;
  /** The execution ARN, to look the run up. */
  readonly executionArn: string;
  readonly status: RunStatus;
  /** One line for people: what the run found or why it failed. */
  readonly summary: string;
  /** What the run cost, in USD (model tokens, billed API requests), or null while not measured. */
  readonly cost: { readonly totalUsd: number } | null;
}

/**
 * JSON Schema (draft 2020-12) of {@link RunCompletedDetail}: what consumers
 * (and EventBridge Schema Registry, if registered) rely on.
 */
export const RUN_COMPLETED_DETAIL_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Run Completed',
  type: 'object',
  properties: {
    tenant: { type: 'string' },
    scenario: { type: 'string' },
    runId: { type: 'string' },
    executionArn: { type: 'string' },
    status: { type: 'string', enum: ['SUCCEEDED', 'PARTIAL', 'FAILED', 'TIMED_OUT'] },
    summary: { type: 'string' },
    cost: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: { totalUsd: { type: 'number', minimum: 0 } },
          required: ['totalUsd'],
          additionalProperties: false,
        },
      ],
    },
  },
  required: ['tenant', 'scenario', 'runId', 'executionArn', 'status', 'summary', 'cost'],
  additionalProperties: false,
} as const;

/** A field of the detail: a fixed value, or a JSONPath / intrinsic function read from the state. */
export type AslField<T> = { readonly value: T } | { readonly path: string };

/** What {@link runCompletedEventState} builds the event from. */
export interface RunCompletedFields {
  /** The scenario's name (a constant of its state machine). */
  readonly scenario: string;
  /** Where the tenant is in the state. @default { path: '$.input.tenant' } */
  readonly tenant?: AslField<string>;
  readonly status: AslField<RunStatus>;
  readonly summary: AslField<string>;
  readonly cost: AslField<{ totalUsd: number } | null>;
  /** The event bus name. @default {@link RUN_EVENT_BUS_PLACEHOLDER} */
  readonly eventBusName?: string;
}

function field<T>(name: string, value: AslField<T>): Record<string, unknown> {
  return 'path' in value ? { [`${name}.$`]: value.path } : { [name]: value.value };
}

/**
 * The Task state that puts the `Run Completed` event: the optimized EventBridge
 * integration (Step Functions developer guide, "Add EventBridge events with
 * Step Functions"), `ResultPath: null` so the run's output is unchanged, EventBridge
 * throttling and internal errors retried. A publish that still fails is caught
 * and the run ends as it would have: the event is a notification, the run's
 * results stand without it.
 *
 * @param next - the state after it, whether the event was published or not.
 */
export function runCompletedEventState(fields: RunCompletedFields, next: string): Record<string, unknown> {
  const detail = {
    ...field('tenant', fields.tenant ?? { path: '$.input.tenant' }),
    scenario: fields.scenario,
    'runId.$': '$$.Execution.Name',
    'executionArn.$': '$$.Execution.Id',
    ...field('status', fields.status),
    ...field('summary', fields.summary),
    ...field('cost', fields.cost),
  };
  return {
    Type: 'Task',
    Comment: `Publish ${RUN_COMPLETED_DETAIL_TYPE} on the platform's event bus`,
    Resource: 'arn:aws:states:::events:putEvents',
    Parameters: {
      Entries: [
        {
          EventBusName: fields.eventBusName ?? RUN_EVENT_BUS_PLACEHOLDER,
          Source: RUN_EVENT_SOURCE,
          DetailType: RUN_COMPLETED_DETAIL_TYPE,
          Detail: detail,
        },
      ],
    },
    ResultPath: null,
    Retry: [
      {
        ErrorEquals: ['EventBridge.EventBridgeException', 'EventBridge.InternalException', 'States.Timeout'],
        IntervalSeconds: 1,
        MaxAttempts: 3,
        BackoffRate: 2,
        JitterStrategy: 'FULL',
      },
    ],
    Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: next }],
    Next: next,
  };
}
