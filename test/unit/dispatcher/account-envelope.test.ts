import * as z from 'zod/mini';
import { createDispatcher } from '../../../functions/dispatcher/dispatch';
import type { ToolInvoker } from '../../../functions/dispatcher/invoker';
import { VendingToolInvoker } from '../../../functions/dispatcher/vending-invoker';
import { functionTool, ToolCatalog } from '../../../functions/runtime/catalog';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { assertToolInvocation, type ToolInvocation } from '../../../functions/runtime/invocation';
import { logger } from '../../../functions/runtime/logger';
import type { ToolResult } from '../../../functions/runtime/result';
import type { CredentialVendor } from '../../../functions/runtime/secrets/vended';
import { defineToolSpec, type ToolSpec } from '../../../functions/runtime/spec';

/**
 * The envelope's `account` (docs/organizations-runs.md, "Calls in a member account"):
 * carried to the tool function on the calls of a per-account level, with the level's
 * organization secret; refused anywhere else; required on those levels.
 */
const awsSpec = defineToolSpec({
  name: 'probe_aws',
  description: 'Reads nothing.',
  inputSchema: () => z.strictObject({}),
  tags: ['aws'],
  requiresSecrets: ['aws_default'],
  sideEffects: 'none',
  iam: [],
});
const catalog = new ToolCatalog([functionTool(awsSpec, 'test/probe-aws')]);

function recordingInvoker(): ToolInvoker & { readonly sent: ToolInvocation[] } {
  const sent: ToolInvocation[] = [];
  return {
    sent,
    async invoke(spec: ToolSpec, invocation: ToolInvocation): Promise<ToolResult> {
      sent.push(invocation);
      return {
        ok: true,
        tool: spec.name,
        callId: invocation.callId,
        value: {},
        truncated: false,
        resultRef: null,
        durationMs: 1,
        summary: 'ok',
      };
    },
  };
}

function setup(invoker: ToolInvoker = recordingInvoker()) {
  const dispatch = createDispatcher({
    catalog,
    whitelists: { org_audit: { collect: ['probe_aws'], analyze: ['probe_aws'] } },
    accountLevels: { org_audit: { collect: 'aws_org_prod' } },
    invoker,
    services: { logger },
    logger,
    maxResultBytes: 64 * 1024,
    requireLevel: true,
  });
  return (envelope: unknown) => dispatch(envelope, deadlineIn(10_000));
}

const call = {
  tenant: 'acme',
  scenario: 'org_audit',
  level: 'collect',
  tool: 'probe_aws',
  runId: 'org-run-1',
  callId: 'collect/0',
  account: '111122223333',
  args: {},
};

beforeEach(() => {
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => jest.restoreAllMocks());

describe('account on the calls of a per-account level', () => {
  it('travels to the tool with the level’s organization secret, not one the caller names', async () => {
    // Prepare
    const invoker = recordingInvoker();
    const dispatch = setup(invoker);

    // Act
    const result = await dispatch({ ...call, orgSecret: 'aws_org_other' });

    // Assess
    expect(result.ok).toBe(true);
    expect(invoker.sent).toEqual([
      {
        tenant: 'acme',
        scenario: 'org_audit',
        level: 'collect',
        tool: 'probe_aws',
        runId: 'org-run-1',
        callId: 'collect/0',
        account: '111122223333',
        orgSecret: 'aws_org_prod',
        args: {},
      },
    ]);
  });

  it.each([
    ['11112222333', 'account "11112222333" is not a member account id: 12 digits (111122223333)'],
    ['1111222233334', 'account "1111222233334" is not a member account id: 12 digits (111122223333)'],
    [
      'arn:aws:iam::111122223333:root',
      'account "arn:aws:iam::111122223333:root" is not a member account id: 12 digits (111122223333)',
    ],
    [111122223333, 'account (a number) is not a member account id: 12 digits (111122223333)'],
  ])('refuses account %p before any call', async (account, problem) => {
    // Prepare
    const invoker = recordingInvoker();
    const dispatch = setup(invoker);

    // Act
    const result = await dispatch({ ...call, account });

    // Assess
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
    expect(result.ok ? '' : result.error.message).toBe(`Invalid envelope: ${problem}`);
    expect(invoker.sent).toEqual([]);
  });

  it('requires account on a per-account level', async () => {
    // Prepare
    const invoker = recordingInvoker();
    const dispatch = setup(invoker);
    const { account: _account, ...withoutAccount } = call;

    // Act
    const result = await dispatch(withoutAccount);

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_args',
        message:
          'account is required: level collect of scenario org_audit runs once per member account (for_each_account), so each call names its 12-digit account id',
      },
    });
    expect(invoker.sent).toEqual([]);
  });

  it('refuses account on a level that is not per-account', async () => {
    // Prepare
    const invoker = recordingInvoker();
    const dispatch = setup(invoker);

    // Act
    const result = await dispatch({ ...call, level: 'analyze', callId: 'analyze/0' });

    // Assess
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_args',
        message:
          'account is accepted only on the calls of a per-account level (for_each_account); level analyze of scenario org_audit is not one',
      },
    });
    expect(invoker.sent).toEqual([]);
  });

  it('keeps today’s envelope on other levels: no account, no organization secret', async () => {
    // Prepare
    const invoker = recordingInvoker();
    const dispatch = setup(invoker);
    const { account: _account, ...single } = call;

    // Act
    const result = await dispatch({
      ...single,
      level: 'analyze',
      callId: 'analyze/0',
      orgSecret: 'aws_org_x',
    });

    // Assess
    expect(result.ok).toBe(true);
    expect(Object.keys(invoker.sent[0] as object).sort()).toEqual([
      'args',
      'callId',
      'level',
      'runId',
      'scenario',
      'tenant',
      'tool',
    ]);
  });

  it('vends the reader session of the organization secret beside the spec’s', async () => {
    // Prepare
    const inner = recordingInvoker();
    const vend = jest.fn(async (tenant: string, names: readonly string[]) => ({
      tenant,
      sessions: Object.fromEntries(
        names.map((name) => [
          name,
          {
            accessKeyId: 'ASIA',
            secretAccessKey: 's',
            sessionToken: 't',
            expiration: '2030-01-01T00:00:00Z',
          },
        ]),
      ),
    }));
    const dispatch = setup(new VendingToolInvoker(inner, { vend } as unknown as CredentialVendor));

    // Act
    const result = await dispatch(call);

    // Assess
    expect(result.ok).toBe(true);
    expect(vend.mock.calls).toEqual([['acme', ['aws_default', 'aws_org_prod'], {}]]);
  });
});

describe('assertToolInvocation() in the tool function', () => {
  it('accepts the organization secret the dispatcher set and refuses a malformed one', () => {
    // Act / Assess
    expect(() => assertToolInvocation({ ...call, orgSecret: 'aws_org_prod' })).not.toThrow();
    expect(() => assertToolInvocation({ ...call, orgSecret: 'aws_default' })).toThrow(
      'Invalid envelope: orgSecret "aws_default" is not a secret name of an organization target: aws_org_ then lowercase letters, digits or _ (aws_org_default)',
    );
  });
});
