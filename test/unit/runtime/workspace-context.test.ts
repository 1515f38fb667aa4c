import { z } from 'zod/mini';
import { createToolContext } from '../../../functions/runtime/context';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import {
  DEFAULT_RESULT_INLINE_BYTES,
  FULL_RESULT_MAX_BYTES,
  resultInlineBytes,
  resultMaxBytes,
  toolResultMaxBytes,
} from '../../../functions/runtime/result-limits';
import { defineToolSpec } from '../../../functions/runtime/spec';
import type { Workspace, WorkspaceProvider, WorkspaceScope } from '../../../functions/runtime/workspace';
import { toolInvocation } from '../../helpers/events';

const spec = defineToolSpec({
  name: 'probe',
  description: 'Opens its workspace.',
  inputSchema: z.strictObject({}),
  tags: ['workspace'],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});

describe("a tool context's workspace", () => {
  it('is opened once per call, for the call’s tenant, scenario and run, with its deadline', () => {
    // Prepare
    const opened: { scope: WorkspaceScope; signal?: AbortSignal }[] = [];
    const workspaces: WorkspaceProvider = (scope, signal) => {
      opened.push({ scope, signal });
      return { uri: `mem://${scope.tenant}/` } as Workspace;
    };
    const deadline = deadlineIn(5_000);
    const ctx = createToolContext(
      spec,
      toolInvocation({ tenant: 'acme', scenario: 'aws_pulse', runId: 'run-3' }),
      deadline,
      { logger, workspaces },
    );

    // Act
    const first = ctx.workspace();
    const second = ctx.workspace();

    // Assess
    expect(first).toBe(second);
    expect(opened).toEqual([
      { scope: { tenant: 'acme', scenario: 'aws_pulse', runId: 'run-3' }, signal: deadline.signal },
    ]);
  });

  it('is undefined where no workspace is configured (a tool in its own function)', () => {
    expect(
      createToolContext(spec, toolInvocation(), deadlineIn(1000), { logger }).workspace(),
    ).toBeUndefined();
  });
});

describe('result limits', () => {
  it.each([
    [undefined, DEFAULT_RESULT_INLINE_BYTES],
    ['16384', 16384],
    ['4096', DEFAULT_RESULT_INLINE_BYTES],
    ['70000', DEFAULT_RESULT_INLINE_BYTES],
    ['9000.5', DEFAULT_RESULT_INLINE_BYTES],
  ])('RESULT_INLINE_BYTES=%s gives an inline budget of %d bytes', (configured, expected) => {
    expect(resultInlineBytes({ RESULT_INLINE_BYTES: configured })).toBe(expected);
  });

  it('bounds a tool function at TOOL_RESULT_MAX_BYTES when valid, else at its RESULT_MAX_BYTES', () => {
    expect(toolResultMaxBytes({ TOOL_RESULT_MAX_BYTES: String(FULL_RESULT_MAX_BYTES) })).toBe(
      FULL_RESULT_MAX_BYTES,
    );
    expect(toolResultMaxBytes({ TOOL_RESULT_MAX_BYTES: String(FULL_RESULT_MAX_BYTES + 1) })).toBe(
      resultMaxBytes({}),
    );
    expect(toolResultMaxBytes({ RESULT_MAX_BYTES: '32768' })).toBe(32768);
  });
});
