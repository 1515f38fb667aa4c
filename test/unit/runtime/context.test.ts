import { z } from 'zod/mini';
import { createToolContext } from '../../../functions/runtime/context';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { logger } from '../../../functions/runtime/logger';
import { InMemorySecretReferenceStore } from '../../../functions/runtime/secrets/memory-store';
import { SecretResolver } from '../../../functions/runtime/secrets/resolver';
import { defineToolSpec } from '../../../functions/runtime/spec';
import { toolHostServices } from '../../../functions/runtime/tool-host';
import { toolInvocation } from '../../helpers/events';

const spec = defineToolSpec({
  name: 'probe',
  description: 'Reads its AWS access.',
  inputSchema: z.strictObject({}),
  tags: ['aws'],
  requiresSecrets: ['aws_default'],
  sideEffects: 'none',
  iam: [],
});

describe('createToolContext', () => {
  it('gives no AWS access where the services hold none (the dispatcher)', async () => {
    // Prepare
    const ctx = createToolContext(spec, toolInvocation(), deadlineIn(1000), { logger });

    // Act / Assess
    await expect(ctx.aws()).rejects.toMatchObject({
      code: 'internal_error',
      message: 'probe asked for AWS access where none is configured',
    });
  });

  it('resolves AWS access from the tenant secret in a tool host', async () => {
    // Prepare
    const store = new InMemorySecretReferenceStore([
      { tenant_id: 'default', secret_name: 'aws_default', ref_kind: 'env', ref_value: 'CONTEXT_TEST_AWS' },
    ]);
    process.env.CONTEXT_TEST_AWS = JSON.stringify({ region: 'ap-southeast-2' });
    const ctx = createToolContext(
      spec,
      toolInvocation(),
      deadlineIn(1000),
      toolHostServices(new SecretResolver(store)),
    );

    // Act
    const access = await ctx.aws();

    // Assess
    expect(access).toMatchObject({ mode: 'own_role', region: 'ap-southeast-2' });
  });

  it('refuses a secret the spec does not list', async () => {
    // Prepare
    const ctx = createToolContext(
      spec,
      toolInvocation(),
      deadlineIn(1000),
      toolHostServices(new SecretResolver(new InMemorySecretReferenceStore())),
    );

    // Act / Assess
    await expect(ctx.secret('slack_default')).rejects.toMatchObject({
      code: 'internal_error',
      message: 'Tool probe read secret "slack_default" that its spec does not list',
    });
  });
});
