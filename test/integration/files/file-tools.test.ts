import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { createDispatcher, type DispatcherOptions } from '../../../functions/dispatcher/dispatch';
import type { ToolInvoker } from '../../../functions/dispatcher/invoker';
import { jsonByteLength } from '../../../functions/runtime/bound';
import { fileTool, functionTool, ToolCatalog } from '../../../functions/runtime/catalog';
import type { ClaimCheckValue } from '../../../functions/runtime/claim-check';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { runTool } from '../../../functions/runtime/harness';
import type { ToolInvocation } from '../../../functions/runtime/invocation';
import { logger } from '../../../functions/runtime/logger';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import { FULL_RESULT_MAX_BYTES, READ_FILE_MAX_BYTES } from '../../../functions/runtime/result-limits';
import { defineTool, defineToolSpec, type Tool, type ToolSpec } from '../../../functions/runtime/spec';
import type {
  ResultRef,
  Workspace,
  WorkspaceProvider,
  WorkspaceScope,
} from '../../../functions/runtime/workspace';
import { toolCatalog } from '../../../functions/tools/catalog';
import { nativeEnvelope } from '../../helpers/events';
import { WORKSPACE_BACKENDS, type WorkspaceBackend } from '../../helpers/workspace-backends';
import { WORKSPACE_ESCAPES } from '../../helpers/workspace-escapes';

const INLINE_BYTES = 8 * 1024;
const MAX_RESULT_BYTES = 64 * 1024;
const SCOPE: WorkspaceScope = { tenant: 'acme', scenario: 'ops_review', runId: 'run-7' };
const ROOT = 'runs/acme/ops_review/run-7/';
// Looks real to the redaction patterns (Slack's documented token shape).
const SLACK_TOKEN = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';

/** About 300 KB of JSON: 2,000 rows, one of them carrying a token that must never be stored. */
function bigValue() {
  return {
    total: 2000,
    rows: Array.from({ length: 2000 }, (_, i) => ({
      id: `i-${String(i).padStart(17, '0')}`,
      region: 'eu-west-1',
      note: i === 7 ? `leaked ${SLACK_TOKEN}` : 'é'.repeat(40),
      tags: { team: `team-${i % 9}`, env: 'prod' },
    })),
  };
}

const bigResultTool = defineTool(
  defineToolSpec({
    name: 'big_result',
    description: 'Test tool: returns about 300 KB of JSON.',
    inputSchema: z.strictObject({}),
    tags: ['test'],
    requiresSecrets: [],
    sideEffects: 'none',
    iam: [],
  }),
  async () => ({ value: bigValue(), summary: '2,000 rows in 1 region' }),
) as unknown as Tool;

/** Runs `big_result` in this process as its function would: whole results up to 1 MiB. */
class InProcessInvoker implements ToolInvoker {
  async invoke(_spec: ToolSpec, invocation: ToolInvocation): Promise<ToolResult> {
    return runTool(bigResultTool, invocation, deadlineIn(60_000), { logger }, FULL_RESULT_MAX_BYTES);
  }
}

const catalog = new ToolCatalog([
  functionTool(bigResultTool, 'test/big-result'),
  ...toolCatalog.fileTools().map((tool) => fileTool(tool)),
]);

/** A provider that counts what it opens, so a test can prove a call never reached the workspace. */
function counting(provider: WorkspaceProvider): { provider: WorkspaceProvider; opened: () => number } {
  let opened = 0;
  return {
    provider: (scope, signal) => {
      opened += 1;
      return provider(scope, signal);
    },
    opened: () => opened,
  };
}

function success<V = Record<string, unknown>>(result: ToolResult): ToolSuccess<V> {
  if (!result.ok) throw new Error(`expected a success, got ${JSON.stringify(result.error)}`);
  return result as ToolSuccess<V>;
}

function failure(result: ToolResult): ToolFailure {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');

describe.each(WORKSPACE_BACKENDS)(
  'file tools and the claim-check through the dispatcher, %s',
  (_name, start) => {
    let backend: WorkspaceBackend;
    let workspace: Workspace;
    let calls = 0;

    beforeAll(async () => {
      backend = await start();
      workspace = backend.open(SCOPE);
    });
    afterAll(async () => {
      await backend.stop();
    });

    function dispatcher(overrides: Partial<DispatcherOptions> = {}) {
      return createDispatcher({
        catalog,
        whitelists: { ops_review: { collect: ['big_result'], analyze: [] } },
        invoker: new InProcessInvoker(),
        services: { logger },
        logger,
        maxResultBytes: MAX_RESULT_BYTES,
        requireLevel: true,
        workspaces: backend.provider,
        inlineResultBytes: INLINE_BYTES,
        ...overrides,
      });
    }

    /** One call at the `analyze` level, a fresh call id each time unless one is given. */
    function call(
      tool: string,
      args: unknown,
      options: { callId?: string } & Partial<DispatcherOptions> = {},
    ) {
      const { callId = `analyze/${calls++}`, ...overrides } = options;
      const envelope = nativeEnvelope({ ...SCOPE, level: 'analyze', tool, args, callId });
      return dispatcher(overrides)(envelope, deadlineIn(60_000));
    }

    describe('write_file', () => {
      it('writes a file the other tools then read and list', async () => {
        // Act
        const written = success(
          await call('write_file', { path: 'reports/pulse.md', content: '# Pulse\nok\n' }),
        );
        const read = success(await call('read_file', { path: 'reports/pulse.md' }));
        const listed = success(await call('list_files', { prefix: 'reports/' }));

        // Assess
        expect(written.value).toEqual({
          path: 'reports/pulse.md',
          bytes: 11,
          sha256: sha256('# Pulse\nok\n'),
        });
        expect(written.summary).toBe('Wrote reports/pulse.md (11 bytes)');
        expect(read.value).toEqual({
          path: 'reports/pulse.md',
          offset: 0,
          bytes: 11,
          totalBytes: 11,
          nextOffset: null,
          content: '# Pulse\nok\n',
        });
        expect(listed.value).toEqual({
          prefix: 'reports/',
          files: [{ path: 'reports/pulse.md', bytes: 11 }],
          truncated: false,
        });
      });

      it('is harmless when retried: the same call twice leaves one file with the same bytes', async () => {
        // Prepare
        const args = { path: 'notes/retry.md', content: 'written once' };

        // Act
        const first = success(await call('write_file', args, { callId: 'analyze/900' }));
        const keysAfterFirst = await backend.keys();
        const retried = success(await call('write_file', args, { callId: 'analyze/900' }));

        // Assess
        expect(retried.value).toEqual(first.value);
        expect(await backend.keys()).toEqual(keysAfterFirst);
        expect((await workspace.read('notes/retry.md')).content).toBe('written once');
      });

      it('refuses the platform folders and an over-long content as invalid_args', async () => {
        // Act
        const platform = failure(await call('write_file', { path: 'results/collect/0.json', content: '{}' }));
        const tooBig = failure(await call('write_file', { path: 'x.md', content: 'é'.repeat(40_000) }));

        // Assess
        expect(platform.error.code).toBe('invalid_args');
        expect(platform.error.message).toContain(
          'results/, levels/, conversations/, snapshots/, summary.json are written by the platform',
        );
        expect(tooBig.error.message).toContain('content: Too big: expected at most 65536 bytes of UTF-8');
      });
    });

    describe('read_file', () => {
      it('reads a long file slice by slice, each within the budget, following nextOffset', async () => {
        // Prepare: 20,000 bytes, escaping-heavy (quotes and line breaks) and multi-byte.
        const text = Array.from({ length: 1000 }, (_, i) => `"é${String(i).padStart(4, '0')}"\n\t`).join('');
        await workspace.write('notes/long.txt', text);

        // Act
        const slices: Record<string, unknown>[] = [];
        let offset: number | null = 0;
        while (offset !== null) {
          const result = success(await call('read_file', { path: 'notes/long.txt', offset }));
          expect(jsonByteLength(result)).toBeLessThanOrEqual(INLINE_BYTES);
          slices.push(result.value);
          offset = result.value.nextOffset as number | null;
        }

        // Assess
        expect(slices.map((slice) => slice.content).join('')).toBe(text);
        expect(slices.length).toBeGreaterThan(Buffer.byteLength(text) / READ_FILE_MAX_BYTES);
        expect(slices.every((slice) => jsonByteLength(slice.content) <= READ_FILE_MAX_BYTES + 2)).toBe(true);
      });

      it('answers not_found for a missing file and invalid_args for a length over the bound', async () => {
        // Act
        const missing = failure(await call('read_file', { path: 'notes/none.md' }));
        const tooLong = failure(
          await call('read_file', { path: 'notes/long.txt', length: READ_FILE_MAX_BYTES + 1 }),
        );

        // Assess
        expect(missing.error).toMatchObject({ code: 'not_found', retryable: false });
        expect(missing.error.message).toContain('No file "notes/none.md"');
        expect(tooLong.error.message).toBe(
          `Invalid arguments for read_file: length: Too big: expected number to be <=${READ_FILE_MAX_BYTES} (got ${READ_FILE_MAX_BYTES + 1}). ` +
            `Accepted: Bytes to read, 1-${READ_FILE_MAX_BYTES} (default ${READ_FILE_MAX_BYTES})`,
        );
      });
    });

    describe('edit_file', () => {
      beforeEach(async () => {
        await workspace.write('reports/edit.md', 'cost: $12\nstatus: draft\nowner: a\nowner: a\n');
      });

      it('replaces exactly one occurrence, keeping $-patterns of new_string as written', async () => {
        // Act
        const edited = success(
          await call('edit_file', {
            path: 'reports/edit.md',
            old_string: 'status: draft',
            new_string: 'status: $& $1',
          }),
        );

        // Assess
        expect(edited.value).toEqual({
          path: 'reports/edit.md',
          replacements: 1,
          bytes: 42,
          alreadyApplied: false,
        });
        expect((await workspace.read('reports/edit.md')).content).toBe(
          'cost: $12\nstatus: $& $1\nowner: a\nowner: a\n',
        );
      });

      it('refuses zero or several matches with how many, and replaces all with replace_all', async () => {
        // Act
        const none = failure(
          await call('edit_file', { path: 'reports/edit.md', old_string: 'status:  draft', new_string: 'x' }),
        );
        const many = failure(
          await call('edit_file', {
            path: 'reports/edit.md',
            old_string: 'owner: a',
            new_string: 'owner: b',
          }),
        );
        const all = success(
          await call('edit_file', {
            path: 'reports/edit.md',
            old_string: 'owner: a',
            new_string: 'owner: b',
            replace_all: true,
          }),
        );

        // Assess
        expect(none.error).toMatchObject({ code: 'invalid_args' });
        expect(none.error.message).toBe(
          'old_string was not found in reports/edit.md. It does occur when white space is ignored: copy the exact ' +
            'spaces, tabs and line breaks. read_file shows the current text.',
        );
        expect(many.error.message).toContain(
          'old_string occurs 2 times in reports/edit.md; it must occur exactly once',
        );
        expect(all.value).toMatchObject({ replacements: 2 });
        expect((await workspace.read('reports/edit.md')).content).toBe(
          'cost: $12\nstatus: draft\nowner: b\nowner: b\n',
        );
      });

      it('does not apply a retried call twice (a -> aa stays aa)', async () => {
        // Prepare
        await workspace.write('notes/grow.md', 'a');
        const args = { path: 'notes/grow.md', old_string: 'a', new_string: 'aa' };

        // Act
        const first = success(await call('edit_file', args, { callId: 'analyze/901' }));
        const retried = success(await call('edit_file', args, { callId: 'analyze/901' }));
        const another = success(
          await call('edit_file', { ...args, replace_all: true }, { callId: 'analyze/902' }),
        );

        // Assess
        expect(first.value).toMatchObject({ replacements: 1, alreadyApplied: false });
        expect(retried.value).toMatchObject({ replacements: 1, alreadyApplied: true });
        expect(another.value).toMatchObject({ replacements: 2, alreadyApplied: false });
        expect((await workspace.read('notes/grow.md')).content).toBe('aaaa');
      });

      it('answers not_found for a missing file and invalid_args for an edit that changes nothing', async () => {
        // Act
        const missing = failure(
          await call('edit_file', { path: 'nope.md', old_string: 'a', new_string: 'b' }),
        );
        const same = failure(
          await call('edit_file', { path: 'reports/edit.md', old_string: 'a', new_string: 'a' }),
        );

        // Assess
        expect(missing.error.code).toBe('not_found');
        expect(same.error.message).toBe(
          'old_string and new_string are the same: the edit would change nothing',
        );
      });
    });

    describe('list_files', () => {
      it('returns at most 100 files within its byte budget and says when there are more', async () => {
        // Prepare
        await Promise.all(
          Array.from({ length: 120 }, (_, i) =>
            workspace.write(`many/file-${String(i).padStart(3, '0')}.txt`, 'x'),
          ),
        );

        // Act
        const listed = success<{ files: { path: string }[]; truncated: boolean }>(
          await call('list_files', { prefix: 'many/' }),
        );

        // Assess
        expect(listed.value.files).toHaveLength(100);
        expect(listed.value.files[0]?.path).toBe('many/file-000.txt');
        expect(listed.value.truncated).toBe(true);
        expect(listed.truncated).toBe(true);
        expect(listed.summary).toBe('100+ file(s) in many/*');
      });
    });

    describe('finish', () => {
      it("keeps the level's answer in levels/<level>/finish.json, the same bytes when retried", async () => {
        // Prepare
        const args = { summary: '3 idle NAT gateways', data: { idle: 3 } };

        // Act
        const first = success(await call('finish', args, { callId: 'analyze/950' }));
        const stored = await workspace.read('levels/analyze/finish.json');
        success(await call('finish', args, { callId: 'analyze/950' }));

        // Assess
        expect(first.value).toEqual({
          finished: true,
          summary: '3 idle NAT gateways',
          data: { idle: 3 },
          file: 'levels/analyze/finish.json',
        });
        expect(JSON.parse(stored.content)).toEqual({
          level: 'analyze',
          callId: 'analyze/950',
          finished: true,
          summary: '3 idle NAT gateways',
          data: { idle: 3 },
        });
        expect((await workspace.read('levels/analyze/finish.json')).content).toBe(stored.content);
      });
    });

    describe('the escape corpus', () => {
      it.each(WORKSPACE_ESCAPES.map((attempt) => [attempt.name, attempt]))(
        '%s is invalid_args for every file tool, before any workspace is opened',
        async (_name, attempt) => {
          // Prepare
          const spy = counting(backend.provider);
          const keysBefore = await backend.keys();

          // Act
          const results = await Promise.all([
            call('read_file', { path: attempt.path }, { workspaces: spy.provider }),
            call('write_file', { path: attempt.path, content: 'x' }, { workspaces: spy.provider }),
            call(
              'edit_file',
              { path: attempt.path, old_string: 'a', new_string: 'b' },
              { workspaces: spy.provider },
            ),
            ...(attempt.path === ''
              ? []
              : [call('list_files', { prefix: attempt.path }, { workspaces: spy.provider })]),
          ]);

          // Assess
          for (const result of results) {
            expect(failure(result).error.code).toBe('invalid_args');
            expect(failure(result).error.message).toMatch(attempt.reason);
          }
          expect(spy.opened()).toBe(0);
          expect(await backend.keys()).toEqual(keysBefore);
        },
      );

      it('left nothing outside the run prefix', async () => {
        expect((await backend.keys()).filter((key) => !key.startsWith(ROOT))).toEqual([]);
      });
    });

    describe('the claim-check', () => {
      let firstRef: ResultRef | null = null;

      it('stores a 300 KB result, returns resultRef with its bytes and sha256, and a stand-in within the budget', async () => {
        // Act
        const result = success<ClaimCheckValue>(
          await dispatcher()(
            nativeEnvelope({ ...SCOPE, level: 'collect', tool: 'big_result', args: {}, callId: 'collect/0' }),
            deadlineIn(60_000),
          ),
        );
        const stored = await workspace.read('results/collect/0.json');
        const storedBytes = Buffer.from(stored.content, 'utf8');

        // Assess
        expect(jsonByteLength(bigValue())).toBeGreaterThan(300_000);
        expect(jsonByteLength(result)).toBeLessThanOrEqual(INLINE_BYTES);
        expect(result.resultRef).toEqual({
          uri: `${backend.uriBase}${ROOT}results/collect/0.json`,
          bytes: storedBytes.byteLength,
          sha256: sha256(storedBytes),
        });
        expect(result.truncated).toBe(false);
        expect(result.summary).toBe('2,000 rows in 1 region');
        expect(result.value.summary).toBe('2,000 rows in 1 region');
        expect(result.value.stored).toEqual({
          path: 'results/collect/0.json',
          bytes: storedBytes.byteLength,
        });
        expect(result.value.note).toContain('read_file {"path":"results/collect/0.json","offset":0}');
        expect((result.value.preview as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
        firstRef = result.resultRef;
        // Redacted before it was stored: no secret reaches the workspace.
        expect(stored.content).not.toContain(SLACK_TOKEN);
        expect(stored.content).toContain('leaked <redacted>');
      });

      it('lets a model read the stored result back whole with read_file slices, the same bytes when retried', async () => {
        // Prepare: the call retried (Step Functions retries a Task whose answer was lost).
        const again = await dispatcher()(
          nativeEnvelope({ ...SCOPE, level: 'collect', tool: 'big_result', args: {}, callId: 'collect/0' }),
          deadlineIn(60_000),
        );

        // Act
        let text = '';
        let offset: number | null = 0;
        let reads = 0;
        while (offset !== null) {
          const slice = success(await call('read_file', { path: 'results/collect/0.json', offset }));
          expect(slice.resultRef).toBeNull();
          text += slice.value.content as string;
          offset = slice.value.nextOffset as number | null;
          reads += 1;
        }

        // Assess
        expect(success(again).resultRef).toEqual(firstRef);
        expect(sha256(text)).toBe(firstRef?.sha256);
        expect(reads).toBeGreaterThan(50);
        const document = JSON.parse(text);
        expect(document).toMatchObject({
          ok: true,
          tool: 'big_result',
          callId: 'collect/0',
          summary: '2,000 rows in 1 region',
        });
        expect(document.value.rows).toHaveLength(2000);
        expect(document.value.rows[1999]).toEqual(bigValue().rows[1999]);
      });

      it('shrinks the result to the inline budget when the write fails, with no resultRef', async () => {
        // Prepare: a workspace whose writes fail (a bucket the role may not write).
        const failing: WorkspaceProvider = (scope, signal) => ({
          ...backend.provider(scope, signal),
          uri: 'file:///unwritable/',
          read: backend.provider(scope, signal).read,
          list: backend.provider(scope, signal).list,
          write: async () => {
            throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
          },
        });

        // Act
        const result = success(
          await dispatcher({ workspaces: failing })(
            nativeEnvelope({ ...SCOPE, level: 'collect', tool: 'big_result', args: {}, callId: 'collect/1' }),
            deadlineIn(60_000),
          ),
        );

        // Assess
        expect(result.resultRef).toBeNull();
        expect(result.truncated).toBe(true);
        expect(jsonByteLength(result)).toBeLessThanOrEqual(INLINE_BYTES);
      });
    });
  },
);

describe('without a workspace (no bucket configured)', () => {
  const dispatch = createDispatcher({
    catalog,
    whitelists: { ops_review: { collect: ['big_result'], analyze: [] } },
    invoker: new InProcessInvoker(),
    services: { logger },
    logger,
    maxResultBytes: MAX_RESULT_BYTES,
    requireLevel: true,
  });
  const envelope = (tool: string, args: unknown, level = 'analyze') =>
    nativeEnvelope({ ...SCOPE, level, tool, args, callId: `${level}/0` });

  it('shrinks a large result to maxResultBytes as before the claim-check', async () => {
    // Act
    const result = success(await dispatch(envelope('big_result', {}, 'collect'), deadlineIn(60_000)));

    // Assess
    expect(result.resultRef).toBeNull();
    expect(result.truncated).toBe(true);
    expect(jsonByteLength(result)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(jsonByteLength(result)).toBeGreaterThan(INLINE_BYTES);
  });

  it('still finishes a level, and says what file tools need', async () => {
    // Act
    const finished = success(await dispatch(envelope('finish', { summary: 'done' }), deadlineIn(60_000)));
    const read = failure(await dispatch(envelope('read_file', { path: 'x.md' }), deadlineIn(60_000)));

    // Assess
    expect(finished.value).toEqual({ finished: true, summary: 'done' });
    expect(read.error).toMatchObject({
      code: 'internal_error',
      message: "read_file needs the run's workspace, and this dispatcher has none configured (RUN_BUCKET)",
    });
  });
});
