import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { localWorkspaceProvider } from '../../../bin/local/local-workspace';
import { jsonByteLength } from '../../../functions/runtime/bound';
import { claimCheckPath } from '../../../functions/runtime/claim-check';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import { createPostCall } from '../../../functions/runtime/post-call';
import { REDACTED } from '../../../functions/runtime/redact';
import type { ToolResult, ToolSuccess } from '../../../functions/runtime/result';
import type { WorkspaceProvider } from '../../../functions/runtime/workspace';

const SCOPE = { tenant: 'acme', runId: 'run-1', scenario: 'aws_pulse' };
const INLINE_BYTES = 8 * 1024;

/** A success whose value holds `items` rows, a credential under a sensitive key and a plain phrase under one (kept when a spec lists the key in `visibleOutputKeys`). */
function success(items: number): ToolSuccess {
  return {
    ok: true,
    tool: 'aws_ec2_inventory',
    callId: 'collect/0',
    durationMs: 12,
    summary: `${items} instances`,
    truncated: false,
    resultRef: null,
    value: {
      api_key: 'sk-live-0123456789abcdef',
      region: 'eu-west-1',
      db_password: 'correct horse battery staple',
      instances: Array.from({ length: items }, (_, n) => ({
        id: `i-${String(n).padStart(17, '0')}`,
        state: 'running',
      })),
    },
  };
}

describe('createPostCall (the work on every result after its tool ran)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'etp-post-call-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('redacts a small result and keeps it inline, the spec’s visible keys left as they are', async () => {
    // Prepare
    const postCall = createPostCall({
      logger,
      maxResultBytes: 64 * 1024,
      workspaces: localWorkspaceProvider(dir),
      inlineResultBytes: INLINE_BYTES,
    });

    // Act
    const masked = (await postCall(success(2), SCOPE, deadlineIn(10_000))) as ToolSuccess<
      Record<string, unknown>
    >;
    const kept = (await postCall(success(2), SCOPE, deadlineIn(10_000), ['DbPassword'])) as ToolSuccess<
      Record<string, unknown>
    >;

    // Assess
    expect(masked.value.api_key).toBe(REDACTED);
    expect(masked.value.db_password).toBe(REDACTED);
    expect(masked.value.region).toBe('eu-west-1');
    expect(masked.resultRef).toBeNull();
    expect(kept.value.db_password).toBe('correct horse battery staple');
    expect(kept.value.api_key).toBe(REDACTED);
  });

  it('claim-checks a result over the inline budget: the stored file is the redacted result, the stand-in fits', async () => {
    // Prepare
    const workspaces = localWorkspaceProvider(dir);
    const postCall = createPostCall({
      logger,
      maxResultBytes: 64 * 1024,
      workspaces,
      inlineResultBytes: INLINE_BYTES,
    });

    // Act
    const checked = (await postCall(success(2000), SCOPE, deadlineIn(10_000))) as ToolSuccess;
    const stored = await workspaces(SCOPE).read(claimCheckPath('collect/0'), { length: 5 * 1024 * 1024 });

    // Assess
    expect(jsonByteLength(checked)).toBeLessThanOrEqual(INLINE_BYTES);
    expect(checked.resultRef?.bytes).toBe(stored.totalBytes);
    const document = JSON.parse(stored.content) as { value: { api_key: string; instances: unknown[] } };
    expect(document.value.api_key).toBe(REDACTED);
    expect(document.value.instances).toHaveLength(2000);
    expect(stored.content).not.toContain('sk-live-0123456789abcdef');
  });

  it("claim-checks two accounts' results of the same call id into two files (a per-account level's children reuse call ids)", async () => {
    // Prepare
    const workspaces = localWorkspaceProvider(dir);
    const postCall = createPostCall({
      logger,
      maxResultBytes: 64 * 1024,
      workspaces,
      inlineResultBytes: INLINE_BYTES,
    });

    // Act
    const first = (await postCall(
      success(2000),
      { ...SCOPE, account: '111122223333' },
      deadlineIn(10_000),
    )) as ToolSuccess;
    const second = (await postCall(
      success(1500),
      { ...SCOPE, account: '444455556666' },
      deadlineIn(10_000),
    )) as ToolSuccess;
    const stored = (account: string) =>
      workspaces(SCOPE).read(claimCheckPath('collect/0', account), { length: 5 * 1024 * 1024 });

    // Assess: each account's file holds its own result, and its reference points at it
    expect(claimCheckPath('collect/0', '111122223333')).toBe('results/accounts/111122223333/collect/0.json');
    const [one, two] = await Promise.all([stored('111122223333'), stored('444455556666')]);
    expect((JSON.parse(one.content) as { value: { instances: unknown[] } }).value.instances).toHaveLength(
      2000,
    );
    expect((JSON.parse(two.content) as { value: { instances: unknown[] } }).value.instances).toHaveLength(
      1500,
    );
    expect(first.resultRef?.uri).toMatch(/results\/accounts\/111122223333\/collect\/0\.json$/);
    expect(second.resultRef?.uri).toMatch(/results\/accounts\/444455556666\/collect\/0\.json$/);
  });

  it('never shrinks a success while a workspace can take it: within the budget it stays whole, past it it is claim-checked', async () => {
    // Prepare: results from 3 KiB under the inline budget to 1 KiB over it, every 64 bytes. The band
    // just under the budget (value over the budget less the bound's 2 KiB envelope reserve, result
    // within it) used to be shrunk inline: an organization account's 8,086-byte RDS result lost half
    // its findings that way while every larger result was claim-checked whole.
    const workspaces = localWorkspaceProvider(dir);
    const postCall = createPostCall({
      logger,
      maxResultBytes: 64 * 1024,
      workspaces,
      inlineResultBytes: INLINE_BYTES,
    });
    const base = success(0);
    const padded = (bytes: number, call: number): ToolSuccess => {
      const result = { ...base, callId: `collect/${call}`, value: { ...(base.value as object), pad: '' } };
      return { ...result, value: { ...result.value, pad: 'x'.repeat(bytes - jsonByteLength(result)) } };
    };
    const sizes = Array.from({ length: 65 }, (_, i) => INLINE_BYTES - 3 * 1024 + i * 64);

    // Act
    const outcomes = await Promise.all(
      sizes.map(async (bytes, call) => {
        const raw = padded(bytes, call);
        const done = (await postCall(raw, SCOPE, deadlineIn(10_000))) as ToolSuccess<{ pad: string }>;
        return {
          bytes: jsonByteLength(raw),
          callId: raw.callId,
          pad: (raw.value as { pad: string }).pad,
          done,
        };
      }),
    );

    // Assess
    expect(outcomes.map((o) => o.bytes)).toEqual(sizes);
    for (const { bytes, callId, pad, done } of outcomes) {
      if (bytes <= INLINE_BYTES) {
        // Whole: the padding kept to the byte, nothing marked cut, no reference
        expect([bytes, done.truncated, done.resultRef, done.value.pad === pad]).toEqual([
          bytes,
          false,
          null,
          true,
        ]);
      } else {
        const stored = await workspaces(SCOPE).read(claimCheckPath(callId), { length: 64 * 1024 });
        expect([bytes, done.truncated, done.resultRef?.bytes]).toEqual([bytes, false, stored.totalBytes]);
        expect(jsonByteLength(done)).toBeLessThanOrEqual(INLINE_BYTES);
      }
    }
    expect(outcomes.filter((o) => o.bytes <= INLINE_BYTES)).toHaveLength(49);
  });

  it('shrinks to the inline budget when the workspace write fails, and to maxResultBytes without a workspace', async () => {
    // Prepare
    const failing: WorkspaceProvider = (scope) => {
      const workspace = localWorkspaceProvider(dir)(scope);
      return Object.assign(Object.create(Object.getPrototypeOf(workspace)), workspace, {
        uri: workspace.uri,
        write: async () => {
          throw Object.assign(new Error('slow down'), { name: 'SlowDown' });
        },
      });
    };
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => {});
    const withFailingWrite = createPostCall({
      logger,
      maxResultBytes: 64 * 1024,
      workspaces: failing,
      inlineResultBytes: INLINE_BYTES,
    });
    const withoutWorkspace = createPostCall({ logger, maxResultBytes: 16 * 1024 });

    // Act
    const shrunk = (await withFailingWrite(success(2000), SCOPE, deadlineIn(10_000))) as ToolSuccess;
    const bounded: ToolResult = await withoutWorkspace(success(2000), SCOPE, deadlineIn(10_000));

    // Assess
    expect(shrunk.resultRef).toBeNull();
    expect(shrunk.truncated).toBe(true);
    expect(jsonByteLength(shrunk)).toBeLessThanOrEqual(INLINE_BYTES);
    expect(warn).toHaveBeenCalledWith(
      'claim-check failed: the result is shrunk instead',
      expect.objectContaining({ tool: 'aws_ec2_inventory', callId: 'collect/0' }),
    );
    expect(bounded.ok && bounded.truncated).toBe(true);
    expect(jsonByteLength(bounded)).toBeLessThanOrEqual(16 * 1024);
    expect(jsonByteLength(bounded)).toBeGreaterThan(INLINE_BYTES);
    warn.mockRestore();
  });
});
