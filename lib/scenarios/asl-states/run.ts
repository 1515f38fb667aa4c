/** The states around the levels: `Start` (the input), `Summary`, the `Run Completed` event, `Done`. */
import { PUBLISH_RUN_COMPLETED_STATE, runCompletedEventState } from '../run-events';
import { type AslBuild, engineTask, runIdentity } from './tasks';

export function startStates(build: AslBuild, first: string): void {
  build.states.Start = engineTask(
    build,
    {
      action: 'start',
      scenario: build.scenario.name,
      'runId.$': '$$.Execution.Name',
      'input.$': '$$.Execution.Input',
    },
    '$',
    { Next: first },
    { catchTo: 'StartFailed' },
  );
  build.states.StartFailed = {
    Type: 'Fail',
    Comment:
      'The input was rejected (the Cause says why and what is accepted), or the engine could not start.',
    ErrorPath: '$.Error',
    CausePath: '$.Cause',
  };
}

export function summaryStates(build: AslBuild): void {
  build.states.Summary = engineTask(
    build,
    {
      action: 'summary',
      ...runIdentity(build),
      'startedAt.$': '$$.Execution.StartTime',
      'input.$': '$.input',
      'levels.$': '$.levels',
    },
    '$',
    { Next: PUBLISH_RUN_COMPLETED_STATE },
    { catchTo: 'SummaryFailed', catchPath: '$.summaryError' },
  );
  // Every finished run tells the platform's bus (docs/entry-points.md, "Run Completed").
  build.states[PUBLISH_RUN_COMPLETED_STATE] = runCompletedEventState(
    {
      scenario: build.scenario.name,
      tenant: { path: '$.tenant' },
      status: { path: '$.completion.status' },
      summary: { path: '$.completion.summary' },
      cost: { path: '$.completion.cost' },
    },
    'Done',
  );
  build.states.SummaryFailed = { Type: 'Pass', Next: 'PublishRunFailed' };
  build.states.PublishRunFailed = runCompletedEventState(
    {
      scenario: build.scenario.name,
      status: { value: 'FAILED' },
      summary: {
        value: `${build.scenario.name}: the run summary could not be computed (see the execution)`,
      },
      cost: { value: null },
    },
    'Done',
  );
  build.states.Done = { Type: 'Succeed', Comment: 'The run is over; its output is the run summary' };
}
