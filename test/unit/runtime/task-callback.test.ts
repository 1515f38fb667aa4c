import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, TaskTimedOut } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { logger } from '../../../functions/runtime/logger';
import type { ToolFailure } from '../../../functions/runtime/result';
import {
  answerTask,
  isDuplicateDelivery,
  MAX_TASK_ERROR_CHARS,
  stepFunctionsResponder,
  TASK_FAILURE_ERROR,
  taskTokenOf,
} from '../../../functions/runtime/task-callback';

const sfn = mockClient(SFNClient);
const responder = stepFunctionsResponder(new SFNClient({ region: 'us-east-1' }));
const result: ToolFailure = {
  ok: false,
  tool: 'aws_ec2_inventory',
  callId: 'collect/0',
  durationMs: 12,
  summary: 'access_denied: Not authorized',
  error: { code: 'access_denied', message: 'Not authorized', retryable: false },
};

beforeEach(() => {
  sfn.reset();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => jest.restoreAllMocks());

describe('taskTokenOf', () => {
  it('reads the token of a callback invocation, and none of a synchronous one', () => {
    expect(taskTokenOf({ tool: 'x', taskToken: 'AAAA' })).toBe('AAAA');
    expect(taskTokenOf({ tool: 'x' })).toBeUndefined();
    expect(taskTokenOf(null)).toBeUndefined();
    // Inherited fields are no fields.
    expect(taskTokenOf(Object.create({ taskToken: 'AAAA' }))).toBeUndefined();
  });

  it('refuses a token that is not 1 to 2,048 characters, saying what is accepted', () => {
    for (const token of ['', 'x'.repeat(2049), 42]) {
      expect(() => taskTokenOf({ taskToken: token })).toThrow(
        'taskToken must be a Step Functions task token: a string of 1 to 2048 characters',
      );
    }
  });
});

describe('answerTask on Step Functions', () => {
  it('sends an ok: false result as the success output, as JSON', async () => {
    sfn.on(SendTaskSuccessCommand).resolves({});

    expect(await answerTask(responder, 'token-1', result, logger)).toBe('succeeded');

    expect(sfn.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input)).toEqual([
      { taskToken: 'token-1', output: JSON.stringify(result) },
    ]);
    expect(sfn.commandCalls(SendTaskFailureCommand)).toHaveLength(0);
  });

  it('does nothing more when the Task already ended (TaskTimedOut)', async () => {
    sfn.on(SendTaskSuccessCommand).rejects(new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} }));

    expect(await answerTask(responder, 'token-1', result, logger)).toBe('gone');

    expect(sfn.commandCalls(SendTaskFailureCommand)).toHaveLength(0);
  });

  it('fails the task now, with the reason, when the success cannot be sent', async () => {
    sfn
      .on(SendTaskSuccessCommand)
      .rejects(Object.assign(new Error('Output too large'), { name: 'InvalidOutput' }));
    sfn.on(SendTaskFailureCommand).resolves({});

    expect(await answerTask(responder, 'token-1', result, logger)).toBe('failed');

    const [failure] = sfn.commandCalls(SendTaskFailureCommand).map((c) => c.args[0].input);
    expect(failure?.taskToken).toBe('token-1');
    expect(failure?.error).toBe(TASK_FAILURE_ERROR);
    expect(failure?.cause).toMatch(/^The call's result could not be sent: /);
    expect(TASK_FAILURE_ERROR.length).toBeLessThanOrEqual(MAX_TASK_ERROR_CHARS);
  });

  it('never throws, even when neither answer can be sent', async () => {
    sfn.on(SendTaskSuccessCommand).rejects(new Error('socket hang up'));
    sfn.on(SendTaskFailureCommand).rejects(new Error('socket hang up'));

    expect(await answerTask(responder, 'token-1', result, logger)).toBe('failed');
  });
});

describe('isDuplicateDelivery', () => {
  it("tells a write tool's second delivery of a running call from every other result", () => {
    const running: ToolFailure = {
      ...result,
      error: {
        code: 'throttled',
        message: 'Call collect/0 of run r is already running',
        retryable: true,
        details: { retryAfterSeconds: 60, reason: 'call_in_progress' },
      },
    };
    expect(isDuplicateDelivery(running)).toBe(true);
    expect(isDuplicateDelivery(result)).toBe(false);
    expect(
      isDuplicateDelivery({
        ...running,
        error: { ...running.error, details: { reason: 'target_in_progress' } },
      }),
    ).toBe(false);
  });
});
