import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { z } from 'zod/mini';
import type { ToolInvoker } from '../../../../functions/dispatcher/invoker';
import { VendingToolInvoker } from '../../../../functions/dispatcher/vending-invoker';
import { deadlineIn } from '../../../../functions/runtime/deadline';
import { runTool } from '../../../../functions/runtime/harness';
import { invocationOf, type ToolInvocation } from '../../../../functions/runtime/invocation';
import { logger } from '../../../../functions/runtime/logger';
import type { ToolResult } from '../../../../functions/runtime/result';
import {
  CredentialVendor,
  IDEMPOTENCY_SESSION,
  RUN_DATA_SESSION,
  type TenantSessionSource,
  VendedSessions,
  vendedCredentialsOf,
} from '../../../../functions/runtime/secrets/vended';
import { defineTool, defineToolSpec, type Tool } from '../../../../functions/runtime/spec';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { toolInvocation } from '../../../helpers/events';

/** A session source that issues one recognisable session per (tenant, name) and records each. */
function fakeSessions(): TenantSessionSource & {
  readonly asked: string[];
  readonly policies: Record<string, string | undefined>;
} {
  const asked: string[] = [];
  const policies: Record<string, string | undefined> = {};
  return {
    asked,
    policies,
    credentials: (tenant, name, policy) => async (): Promise<AwsCredentialIdentity> => {
      asked.push(`${tenant}/${name}`);
      policies[name] = policy;
      return {
        accessKeyId: `ASIA${tenant}${name}`.toUpperCase(),
        secretAccessKey: `fake-secret-key-of-${tenant}-${name}`,
        sessionToken: `fake-session-token-of-${tenant}-${name}`,
        expiration: new Date('2030-01-01T00:00:00Z'),
      };
    },
  };
}

/** An invoker that records what it was handed. */
function recordingInvoker(): ToolInvoker & { readonly received: ToolInvocation[] } {
  const received: ToolInvocation[] = [];
  return {
    received,
    invoke: async (spec, invocation) => {
      received.push(invocation);
      return { ok: true, tool: spec.name, callId: invocation.callId, value: {}, durationMs: 0 } as ToolResult;
    },
  };
}

const functionTools = toolCatalog.functionTools().map((entry) => entry.spec);
const workspaceTools = functionTools.filter((spec) => spec.workspaceAccess !== undefined);
/** The run workspaces' bucket the vendor opens run-data sessions on. */
const WORKSPACE = { bucket: 'etp-runs', partition: 'aws' };

describe('VendingToolInvoker (the dispatcher vends)', () => {
  it.each(functionTools.map((spec) => [spec.name, spec] as const))(
    'hands %s a session of each name its spec lists, for the call’s tenant, and nothing else',
    async (_name, spec) => {
      // Prepare
      const sessions = fakeSessions();
      const inner = recordingInvoker();
      const invoker = new VendingToolInvoker(inner, new CredentialVendor(sessions), WORKSPACE);

      // Act
      await invoker.invoke(spec, toolInvocation({ tool: spec.name, tenant: 'acme' }));

      // Assess
      const [sent] = inner.received;
      // A write tool also gets its exactly-once records session, a workspace tool its run-data session.
      const names = [
        ...spec.requiresSecrets,
        ...(spec.sideEffects === 'write' ? [IDEMPOTENCY_SESSION] : []),
        ...(spec.workspaceAccess ? [RUN_DATA_SESSION] : []),
      ];
      expect(sessions.asked).toEqual(names.map((name) => `acme/${name}`));
      if (names.length === 0) {
        expect(sent).not.toHaveProperty('vendedCredentials');
        return;
      }
      expect(sent?.vendedCredentials?.tenant).toBe('acme');
      expect(Object.keys(sent?.vendedCredentials?.sessions ?? {})).toEqual(names);
      expect(sent?.vendedCredentials?.sessions[names[0] as string]).toEqual({
        accessKeyId: `ASIAACME${names[0]?.toUpperCase()}`,
        secretAccessKey: `fake-secret-key-of-acme-${names[0]}`,
        sessionToken: `fake-session-token-of-acme-${names[0]}`,
        expiration: '2030-01-01T00:00:00.000Z',
      });
    },
  );

  it.each(workspaceTools.map((spec) => [spec.name, spec] as const))(
    "narrows %s's run-data session to its files of the call's own run, and no reader session",
    async (_name, spec) => {
      // Prepare
      const sessions = fakeSessions();
      const invoker = new VendingToolInvoker(recordingInvoker(), new CredentialVendor(sessions), WORKSPACE);
      const call = toolInvocation({
        tool: spec.name,
        tenant: 'acme',
        scenario: 'snapshot_forensics',
        runId: 'r7',
      });

      // Act
      await invoker.invoke(spec, call);

      // Assess: the session policy names this run's files only (the role confines the tenant)
      const paths = spec.workspaceAccess?.paths ?? [];
      const objects = paths.map((path) => `arn:aws:s3:::etp-runs/runs/acme/snapshot_forensics/r7/${path}`);
      expect(JSON.parse(sessions.policies[RUN_DATA_SESSION] ?? 'null')).toEqual({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action:
              spec.workspaceAccess?.access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject'],
            Resource: objects,
          },
          {
            Effect: 'Allow',
            Action: ['s3:ListBucket'],
            Resource: ['arn:aws:s3:::etp-runs'],
            Condition: {
              StringLike: { 's3:prefix': objects.map((arn) => arn.replace('arn:aws:s3:::etp-runs/', '')) },
            },
          },
        ],
      });
      for (const name of spec.requiresSecrets) expect(sessions.policies[name]).toBeUndefined();
    },
  );

  it('never passes on credentials a caller put in its envelope', () => {
    // Act
    const forwarded = invocationOf({
      ...toolInvocation({ tenant: 'acme' }),
      vendedCredentials: { tenant: 'globex', sessions: {} },
    } as ToolInvocation);

    // Assess
    expect(forwarded).not.toHaveProperty('vendedCredentials');
  });
});

describe('VendedSessions (the tool function reads with what it was handed)', () => {
  const vended = {
    tenant: 'acme',
    sessions: {
      slack_default: {
        accessKeyId: 'ASIAFAKE',
        secretAccessKey: 'fake-secret-key',
        sessionToken: 'fake-session-token',
        expiration: '2030-01-01T00:00:00.000Z',
      },
    },
  };

  it('serves the call’s session for its tenant and name, and no other, and nothing once the call ended', async () => {
    // Prepare
    const sessions = new VendedSessions();
    sessions.accept(vendedCredentialsOf({ vendedCredentials: vended }));

    // Act
    const own = await sessions.credentials('acme', 'slack_default')();
    const otherTenant = sessions.credentials('globex', 'slack_default')();
    const otherName = sessions.credentials('acme', 'aws_default')();
    sessions.clear();
    const after = sessions.credentials('acme', 'slack_default')();

    // Assess
    expect(own).toMatchObject({ accessKeyId: 'ASIAFAKE', sessionToken: 'fake-session-token' });
    await expect(otherTenant).rejects.toMatchObject({ code: 'internal_error' });
    await expect(otherName).rejects.toThrow(
      'No session was vended for secret "aws_default" of tenant "acme"',
    );
    await expect(after).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('refuses a malformed field without quoting it', () => {
    // Act
    const refuse = () =>
      vendedCredentialsOf({
        vendedCredentials: {
          tenant: 'acme',
          sessions: { slack_default: { accessKeyId: 'AKIA', secretAccessKey: 7 } },
        },
      });

    // Assess
    expect(refuse).toThrow("The invocation's vendedCredentials is malformed");
  });

  it('masks the handed secret key and token by exact match in what the call returns', async () => {
    // Prepare: a tool that echoes them (a compromised or careless tool)
    const sessions = new VendedSessions();
    sessions.accept(vended);
    const spec = defineToolSpec({
      name: 'echo_probe',
      description: 'Echoes what it was handed.',
      inputSchema: () => z.strictObject({}),
      tags: [],
      requiresSecrets: [],
      sideEffects: 'none',
      iam: [],
    });
    const tool = defineTool(spec, async () => ({
      value: { echoed: 'key fake-secret-key token fake-session-token' },
    })) as unknown as Tool;

    // Act
    const result = await runTool(tool, toolInvocation({ tool: 'echo_probe', args: {} }), deadlineIn(5_000), {
      logger,
      callSecretStrings: () => sessions.secretStrings(),
    });

    // Assess
    expect(result).toMatchObject({ ok: true, value: { echoed: 'key <redacted> token <redacted>' } });
  });
});
