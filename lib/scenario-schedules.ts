import { Duration, TimeZone } from 'aws-cdk-lib';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { resolveInput } from '../functions/engine/inputs';
import type { Scenario } from './scenarios/model';

/** A scenario run on a schedule for one tenant. */
export interface ScenarioSchedule {
  /** The scenario's name. */
  readonly scenario: string;
  /** The tenant the runs are for. */
  readonly tenant: string;
  /**
   * An EventBridge Scheduler expression (EventBridge Scheduler user guide,
   * "Schedule types"): `rate(1 day)`, `cron(0 7 ? * MON-FRI *)`.
   */
  readonly expression: string;
  /** IANA time zone of a `cron` expression. @default 'UTC' */
  readonly timeZone?: string;
  /** The run's input over the scenario's defaults (the tenant comes from `tenant`). @default {} */
  readonly input?: Readonly<Record<string, unknown>>;
  /** @default true */
  readonly enabled?: boolean;
}

/** Properties of {@link ScenarioSchedules}. */
export interface ScenarioSchedulesProps {
  readonly schedules: readonly ScenarioSchedule[];
  readonly scenarios: readonly Scenario[];
  /** The state machines by scenario name. */
  readonly stateMachines: Readonly<Record<string, IStateMachine>>;
}

const EXPRESSION = /^(?:rate|cron|at)\(.+\)$/;

/**
 * One EventBridge Scheduler schedule per tenant and scenario, each starting the
 * scenario's state machine with the tenant's input (checked at synth with the
 * engine's own input rules: a wrong input fails `cdk synth`, not every run).
 * Scheduler names each execution (a UUID: a valid run id) and retries a failed
 * StartExecution twice within an hour; each schedule gets a role allowed to
 * start its one state machine.
 *
 * @throws Error naming the schedule and what is accepted: an unknown scenario, a
 *   malformed expression, an input the scenario refuses (tenant included).
 */
export class ScenarioSchedules extends Construct {
  /** The schedules, in the order given. */
  public readonly schedules: readonly Schedule[];

  constructor(scope: Construct, id: string, props: ScenarioSchedulesProps) {
    super(scope, id);
    const seen = new Set<string>();
    this.schedules = props.schedules.map((schedule, index) => {
      const where = `schedules[${index}] (${schedule.scenario} for ${schedule.tenant})`;
      const scenario = props.scenarios.find((candidate) => candidate.name === schedule.scenario);
      const stateMachine = props.stateMachines[schedule.scenario];
      if (!scenario || !stateMachine) {
        throw new Error(
          `${where}: no scenario "${schedule.scenario}". Scenarios: ${props.scenarios.map((s) => s.name).join(', ')}`,
        );
      }
      if (!EXPRESSION.test(schedule.expression)) {
        throw new Error(
          `${where}: "${schedule.expression}" is not a Scheduler expression such as rate(1 day) or cron(0 7 ? * MON-FRI *)`,
        );
      }
      const key = `${schedule.scenario}/${schedule.tenant}`;
      if (seen.has(key)) throw new Error(`${where}: the tenant already has a schedule for this scenario`);
      seen.add(key);
      let input: Record<string, unknown>;
      try {
        input = resolveInput(scenario, { ...schedule.input, tenant: schedule.tenant });
      } catch (err) {
        throw new Error(`${where}: ${(err as Error).message}`);
      }
      return new Schedule(this, `${scenario.name}-${schedule.tenant}`.replace(/[^A-Za-z0-9-]/g, '-'), {
        description: `Runs ${scenario.name} for tenant ${schedule.tenant}`,
        schedule: ScheduleExpression.expression(schedule.expression, TimeZone.of(schedule.timeZone ?? 'UTC')),
        target: new StepFunctionsStartExecution(stateMachine, {
          input: ScheduleTargetInput.fromObject(input),
          retryAttempts: 2,
          maxEventAge: Duration.hours(1),
        }),
        enabled: schedule.enabled ?? true,
      });
    });
  }
}
