import { functionFailure } from '../../../functions/dispatcher/function-error';
import type { ToolSpec } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';

describe('functionFailure(): a tool function that failed as a function', () => {
  const writeSpec = toolCatalog.list().find((spec) => spec.sideEffects === 'write');
  const readSpec = toolCatalog.list().find((spec) => spec.sideEffects === 'none');

  it('reads a timeout of a write tool as timeout with an unknown effect, not retried', () => {
    // Act
    const error = functionFailure(
      writeSpec as ToolSpec,
      'Unhandled',
      'Sandbox.Timedout',
      'Task timed out after 30.00 seconds',
    );

    // Assess
    expect(error).toMatchObject({
      code: 'timeout',
      retryable: false,
      details: { functionError: 'Unhandled', errorType: 'Sandbox.Timedout', effect: 'unknown' },
    });
    expect(error.message).toMatch(/not retried: it may have taken effect$/);
  });

  it('reads a timeout by its message when Lambda sent no type, and a crash as internal_error', () => {
    // Act
    const timeout = functionFailure(
      readSpec as ToolSpec,
      'Unhandled',
      undefined,
      'Task timed out after 3.00 seconds',
    );
    const crash = functionFailure(readSpec as ToolSpec, 'Unhandled', 'Runtime.ExitError', 'exit status 137');
    const writeCrash = functionFailure(
      writeSpec as ToolSpec,
      'Unhandled',
      'Runtime.ExitError',
      'exit status 137',
    );

    // Assess
    expect([timeout.code, timeout.retryable]).toEqual(['timeout', true]);
    expect([crash.code, crash.details?.effect]).toEqual(['internal_error', undefined]);
    expect([writeCrash.code, writeCrash.details?.effect]).toEqual(['internal_error', 'unknown']);
  });
});
