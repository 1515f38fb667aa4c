import { Template } from 'aws-cdk-lib/assertions';
import { vendedSessionRequest } from '../../functions/dispatcher/vending-invoker';
import { workspaceSessionPolicy } from '../../functions/runtime/run-data-sessions';
import { IDEMPOTENCY_SESSION } from '../../functions/runtime/secrets/vended';
import { workspaceRoot } from '../../functions/runtime/workspace-path';
import { toolCatalog } from '../../functions/tools/catalog';
import { isOrganizationTool } from '../../lib/aws-tool-grants';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import { logicalIdOf, newApp, roleOf, synthesizePlatform, toolFunctionId } from '../helpers/cdk';
import {
  arnIn,
  decide,
  identityPoliciesOf,
  type NamedPolicy,
  type ResolvedTemplate,
  resolveTemplate,
  sessionOf,
  trustPolicyOf,
} from '../helpers/iam-simulation';

/**
 * Tenant isolation and the cross-account scope PROVED on the synthesized
 * policies: the platform and customer templates are resolved for concrete
 * accounts and evaluated request by request by an IAM policy simulator
 * (@cloud-copilot/iam-simulate). docs/tenant-isolation.md, "Proofs".
 */
const PLATFORM = '123456789012';
const CUSTOMER = '210987654321';
const REGION = 'eu-west-1';
const EXTERNAL_ID = 'etp-acme-3f9a1c7e';

// The organization tool assumes the organization role, not the customer role (test/infra/org-listing-iam.test.ts).
const awsTools = toolCatalog
  .functionTools()
  .filter((entry) => entry.spec.tags.includes('aws') && !isOrganizationTool(entry.spec));
const secretTools = toolCatalog.functionTools().filter((entry) => entry.spec.requiresSecrets.length > 0);
const secretNames = [...new Set(secretTools.flatMap((entry) => entry.spec.requiresSecrets))].sort();

let platform: ResolvedTemplate;
let customer: ResolvedTemplate;
let readerIds: Record<string, string>;
let toolRoleIds: Record<string, string>;
let dispatcherRoleId: string;
let tableArn: string;
let customerRoleId: string;

beforeAll(() => {
  const { stack, template } = synthesizePlatform();
  platform = resolveTemplate(template, { account: PLATFORM, region: REGION });
  readerIds = Object.fromEntries(
    Object.entries(stack.platform.secretReaders.roles).map(([name, role]) => [name, logicalIdOf(role)]),
  );
  toolRoleIds = Object.fromEntries(
    toolCatalog
      .functionTools()
      .map((entry) => [entry.spec.name, roleOf(template, toolFunctionId(stack, entry.spec.name))]),
  );
  dispatcherRoleId = roleOf(template, logicalIdOf(stack.platform.dispatcher.lambdaFunction));
  tableArn = arnIn(platform, logicalIdOf(stack.platform.secretReferenceTable));
  const customerStack = new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess');
  customer = resolveTemplate(Template.fromStack(customerStack), {
    account: CUSTOMER,
    region: REGION,
    parameters: { PlatformAccountId: PLATFORM, ExternalId: EXTERNAL_ID, TenantId: 'acme' },
  });
  customerRoleId = logicalIdOf(customerStack.auditRole);
});

/** A tool function's role: its ARN, a session of it, its identity policies. */
function toolRole(tool: string): { arn: string; session: string; policies: NamedPolicy[] } {
  const id = toolRoleIds[tool] as string;
  const arn = arnIn(platform, id);
  return { arn, session: sessionOf(arn, tool), policies: identityPoliciesOf(platform, id) };
}

/** The reader role of a secret name. */
function reader(name: string): { id: string; arn: string } {
  const id = readerIds[name] as string;
  return { id, arn: arnIn(platform, id) };
}

/** The three authorizations of one AssumeRole with session tags and a source identity. */
async function assume(
  caller: { arn: string; session: string; policies: readonly NamedPolicy[] },
  target: { arn: string; account: string; trust: unknown },
  context: Record<string, string | string[]>,
): Promise<string[]> {
  return Promise.all(
    ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'].map((action) =>
      decide({
        principal: caller.session,
        identityPolicies: caller.policies,
        action,
        resource: target.arn,
        resourceAccount: target.account,
        resourcePolicy: target.trust,
        context: { 'aws:PrincipalArn': caller.arn, 'aws:PrincipalAccount': PLATFORM, ...context },
      }),
    ),
  );
}

const ALLOWED3 = ['Allowed', 'Allowed', 'Allowed'];
const DENIED3 = ['ImplicitlyDenied', 'ImplicitlyDenied', 'ImplicitlyDenied'];

/** A policy that would allow every STS action on every role. */
const STS_ANYTHING: NamedPolicy = {
  name: 'sts-anything',
  policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'sts:*', Resource: '*' }] },
};

/** The dispatcher's role: the vendor of tenant sessions. */
function dispatcherRole(): { arn: string; session: string; policies: NamedPolicy[] } {
  const arn = arnIn(platform, dispatcherRoleId);
  return {
    arn,
    session: sessionOf(arn, 'dispatcher'),
    policies: identityPoliciesOf(platform, dispatcherRoleId),
  };
}

/** Request context of a reader session for `tenant`. */
function readerTags(tenant: string): Record<string, string | string[]> {
  return {
    'aws:RequestTag/etp-tenant': tenant,
    'aws:TagKeys': ['etp-tenant'],
    'sts:SourceIdentity': `etp.${tenant}`,
  };
}

describe('tenant isolation, proved on the synthesized policies', () => {
  it('has one reader role per secret name the tools list', () => {
    expect(Object.keys(readerIds).sort()).toEqual(secretNames);
  });

  it.each(secretNames)(
    'lets the dispatcher (the vendor) open a session of the %s reader tagged with a tenant',
    async (name) => {
      // Prepare
      const target = reader(name);

      // Act
      const decisions = await assume(
        dispatcherRole(),
        { arn: target.arn, account: PLATFORM, trust: trustPolicyOf(platform, target.id) },
        readerTags('acme'),
      );

      // Assess
      expect(decisions).toEqual(ALLOWED3);
    },
  );

  describe.each(toolCatalog.functionTools().map((entry) => [entry.spec.name] as const))('%s', (tool) => {
    it('may open no reader session, of any name, for any tenant (its code cannot choose a tenant)', async () => {
      // Act
      const decisions = await Promise.all(
        secretNames.flatMap((name) =>
          ['acme', 'globex'].map((tenant) =>
            assume(
              toolRole(tool),
              { arn: reader(name).arn, account: PLATFORM, trust: trustPolicyOf(platform, reader(name).id) },
              readerTags(tenant),
            ),
          ),
        ),
      );

      // Assess: neither its own policies nor the readers' trust allow it
      for (const decision of decisions) expect(decision).toEqual(DENIED3);
    });

    it('may open no reader session even if its own policy allowed every sts action (the trust refuses it)', async () => {
      // Prepare
      const role = toolRole(tool);

      // Act
      const decisions = await Promise.all(
        secretNames.map((name) =>
          assume(
            { ...role, policies: [...role.policies, STS_ANYTHING] },
            { arn: reader(name).arn, account: PLATFORM, trust: trustPolicyOf(platform, reader(name).id) },
            readerTags('acme'),
          ),
        ),
      );

      // Assess
      for (const decision of decisions) expect(decision[0]).toBe('ImplicitlyDenied');
    });

    it('reads no reference row and no secret with its own role', async () => {
      // Prepare
      const role = toolRole(tool);

      // Act
      const decisions = await Promise.all(
        secretNames.flatMap((name) => [
          decide({
            principal: role.session,
            identityPolicies: role.policies,
            action: 'dynamodb:GetItem',
            resource: tableArn,
            resourceAccount: PLATFORM,
            context: { 'dynamodb:LeadingKeys': ['acme'] },
          }),
          decide({
            principal: role.session,
            identityPolicies: role.policies,
            action: 'secretsmanager:GetSecretValue',
            resource: `arn:aws:secretsmanager:${REGION}:${PLATFORM}:secret:etp/acme/${name}-AbCdEf`,
            resourceAccount: PLATFORM,
            context: { 'aws:ResourceTag/etp-tenant': 'acme', 'aws:ResourceTag/etp-secret': name },
          }),
        ]),
      );

      // Assess
      for (const decision of decisions) expect(decision).toBe('ImplicitlyDenied');
    });
  });

  it.each([
    ['without the tenant tag', { 'aws:TagKeys': [] as string[], 'sts:SourceIdentity': 'etp.acme' }],
    ['with an empty tenant tag', { 'aws:RequestTag/etp-tenant': '', 'aws:TagKeys': ['etp-tenant'] }],
    [
      'with a tag besides the tenant',
      {
        'aws:RequestTag/etp-tenant': 'acme',
        'aws:RequestTag/etp-admin': 'true',
        'aws:TagKeys': ['etp-tenant', 'etp-admin'],
      },
    ],
  ])('refuses a reader session %s', async (_kind, context) => {
    // Prepare
    const target = reader('aws_default');

    // Act
    const [assumeRole, tagSession] = await assume(
      dispatcherRole(),
      { arn: target.arn, account: PLATFORM, trust: trustPolicyOf(platform, target.id) },
      context,
    );

    // Assess: AssumeRole itself requires the tenant tag, TagSession only that one tag.
    expect([assumeRole, tagSession]).not.toEqual(['Allowed', 'Allowed']);
    expect(assumeRole).not.toBe('Allowed');
  });

  it('refuses a reader session to a role of the account outside the vendor path, whatever its policy', async () => {
    // Prepare: the engine's role, given every sts action
    const { stack, template } = synthesizePlatform();
    const engineRoleId = roleOf(template, logicalIdOf(stack.platform.engine.lambdaFunction));
    const arn = arnIn(platform, engineRoleId);
    const target = reader('aws_default');

    // Act
    const decisions = await assume(
      { arn, session: sessionOf(arn, 'engine'), policies: [STS_ANYTHING] },
      { arn: target.arn, account: PLATFORM, trust: trustPolicyOf(platform, target.id) },
      readerTags('acme'),
    );

    // Assess
    expect(decisions).toEqual(DENIED3);
  });

  describe.each(secretNames)('a session of the %s reader tagged etp-tenant=acme', (name) => {
    function readAs(action: string, resource: string, context: Record<string, string | string[]>) {
      const target = reader(name);
      return decide({
        principal: sessionOf(target.arn, 'etp-secrets.acme'),
        identityPolicies: identityPoliciesOf(platform, target.id),
        action,
        resource,
        resourceAccount: PLATFORM,
        context: { 'aws:PrincipalTag/etp-tenant': 'acme', 'aws:PrincipalArn': target.arn, ...context },
      });
    }
    const secretArn = (tenant: string, secret: string) =>
      `arn:aws:secretsmanager:${REGION}:${PLATFORM}:secret:etp/${tenant}/${secret}-AbCdEf`;

    it("reads acme's reference rows and no other tenant's", async () => {
      // Act
      const own = await readAs('dynamodb:GetItem', tableArn, { 'dynamodb:LeadingKeys': ['acme'] });
      const other = await readAs('dynamodb:GetItem', tableArn, { 'dynamodb:LeadingKeys': ['globex'] });
      const scan = await readAs('dynamodb:Scan', tableArn, {});
      const query = await readAs('dynamodb:Query', tableArn, { 'dynamodb:LeadingKeys': ['acme'] });

      // Assess
      expect({ own, other, scan, query }).toEqual({
        own: 'Allowed',
        other: 'ImplicitlyDenied',
        scan: 'ImplicitlyDenied',
        query: 'ImplicitlyDenied',
      });
    });

    it(`reads acme's ${name} secret and nothing else`, async () => {
      // Prepare
      const otherName = name === 'aws_default' ? 'slack_default' : 'aws_default';
      const tags = (tenant: string, secret: string) => ({
        'aws:ResourceTag/etp-tenant': tenant,
        'aws:ResourceTag/etp-secret': secret,
      });
      const get = 'secretsmanager:GetSecretValue';

      // Act
      const decisions = {
        own: await readAs(get, secretArn('acme', name), tags('acme', name)),
        otherTenant: await readAs(get, secretArn('globex', name), tags('globex', name)),
        otherTenantNamedAsAcme: await readAs(get, secretArn('acme', name), tags('globex', name)),
        otherName: await readAs(get, secretArn('acme', otherName), tags('acme', otherName)),
        untagged: await readAs(get, secretArn('acme', name), {}),
        otherAccount: await readAs(
          get,
          `arn:aws:secretsmanager:${REGION}:111122223333:secret:etp/acme/${name}-AbCdEf`,
          tags('acme', name),
        ),
        outsidePrefix: await readAs(
          get,
          `arn:aws:secretsmanager:${REGION}:${PLATFORM}:secret:prod/db-AbCdEf`,
          tags('acme', name),
        ),
        describe: await readAs('secretsmanager:DescribeSecret', secretArn('acme', name), tags('acme', name)),
      };

      // Assess
      expect(decisions).toEqual({
        own: 'Allowed',
        otherTenant: 'ImplicitlyDenied',
        otherTenantNamedAsAcme: 'ImplicitlyDenied',
        otherName: 'ImplicitlyDenied',
        untagged: 'ImplicitlyDenied',
        otherAccount: 'ImplicitlyDenied',
        outsidePrefix: 'ImplicitlyDenied',
        describe: 'ImplicitlyDenied',
      });
    });

    it('reads nothing without a tenant tag on the session', async () => {
      // Prepare
      const target = reader(name);

      // Act
      const row = await decide({
        principal: sessionOf(target.arn, 'untagged'),
        identityPolicies: identityPoliciesOf(platform, target.id),
        action: 'dynamodb:GetItem',
        resource: tableArn,
        resourceAccount: PLATFORM,
        context: { 'dynamodb:LeadingKeys': ['acme'] },
      });

      // Assess
      expect(row).toBe('ImplicitlyDenied');
    });
  });
});

describe('exactly-once records, proved on the synthesized policies', () => {
  const writeTools = toolCatalog.functionTools().filter((entry) => entry.spec.sideEffects === 'write');
  const recordOps = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
  let recordsRoleId: string;
  let idempotencyArn: string;

  beforeAll(() => {
    const { stack } = synthesizePlatform();
    recordsRoleId = logicalIdOf(stack.platform.idempotencyRecords.role);
    idempotencyArn = arnIn(platform, logicalIdOf(stack.platform.idempotencyTable));
  });

  function recordsSession(
    action: string,
    leadingKeys: string[] | undefined,
    tenant = 'acme',
    sessionPolicy?: string,
  ) {
    const arn = arnIn(platform, recordsRoleId);
    return decide({
      principal: sessionOf(arn, `etp-secrets.${tenant}`),
      identityPolicies: identityPoliciesOf(platform, recordsRoleId),
      action,
      resource: idempotencyArn,
      resourceAccount: PLATFORM,
      ...(sessionPolicy === undefined ? {} : { sessionPolicy: JSON.parse(sessionPolicy) }),
      context: {
        'aws:PrincipalTag/etp-tenant': tenant,
        'aws:PrincipalArn': arn,
        ...(leadingKeys ? { 'dynamodb:LeadingKeys': leadingKeys } : {}),
      },
    });
  }

  it('has write tools to prove it on', () => {
    expect(writeTools.length).toBeGreaterThan(0);
  });

  it.each(writeTools.map((entry) => entry.spec.name))(
    '%s reaches no record with its own role, nor may it open a records session',
    async (tool) => {
      // Prepare
      const role = toolRole(tool);
      const recordsArn = arnIn(platform, recordsRoleId);

      // Act
      const own = await Promise.all(
        recordOps.map((action) =>
          decide({
            principal: role.session,
            identityPolicies: role.policies,
            action,
            resource: idempotencyArn,
            resourceAccount: PLATFORM,
            context: { 'dynamodb:LeadingKeys': ['acme#slack_post_message#0f'] },
          }),
        ),
      );
      const session = await assume(
        { ...role, policies: [...role.policies, STS_ANYTHING] },
        { arn: recordsArn, account: PLATFORM, trust: trustPolicyOf(platform, recordsRoleId) },
        readerTags('acme'),
      );

      // Assess
      expect(own).toEqual(recordOps.map(() => 'ImplicitlyDenied'));
      expect(session[0]).toBe('ImplicitlyDenied');
    },
  );

  it('lets the dispatcher open a records session tagged with a tenant', async () => {
    // Act
    const decisions = await assume(
      dispatcherRole(),
      {
        arn: arnIn(platform, recordsRoleId),
        account: PLATFORM,
        trust: trustPolicyOf(platform, recordsRoleId),
      },
      readerTags('acme'),
    );

    // Assess
    expect(decisions).toEqual(ALLOWED3);
  });

  it.each(writeTools.map((entry) => entry.spec.name))(
    "%s's records session, as the dispatcher vends it, reaches its own tool's records and no other write tool's",
    async (tool) => {
      // Prepare: the session request the dispatcher makes for a call of the tool.
      const spec = toolCatalog.get(tool);
      const other = writeTools.find((entry) => entry.spec.name !== tool)?.spec.name ?? 'another_tool';
      const { policies } = vendedSessionRequest(spec, {
        tool,
        tenant: 'acme',
        runId: 'r1',
        callId: 'report/0',
        scenario: 'aws_pulse',
        level: 'report',
      });
      const policy = policies[IDEMPOTENCY_SESSION];

      // Act
      const own = await Promise.all(
        recordOps.map((action) => recordsSession(action, [`acme#${tool}#0f`], 'acme', policy)),
      );
      const otherTool = await Promise.all(
        recordOps.map((action) => recordsSession(action, [`acme#${other}#0f`], 'acme', policy)),
      );
      const lookalike = await recordsSession('dynamodb:GetItem', [`acme#${tool}_2#0f`], 'acme', policy);

      // Assess
      expect(policy).toBeDefined();
      expect(own).toEqual(recordOps.map(() => 'Allowed'));
      expect(otherTool).toEqual(recordOps.map(() => 'ImplicitlyDenied'));
      expect(lookalike).toBe('ImplicitlyDenied');
    },
  );

  it("a records session tagged acme reads and writes acme's records and no other tenant's", async () => {
    // Act
    const own = await Promise.all(
      recordOps.map((action) => recordsSession(action, ['acme#slack_post_message#0f'])),
    );
    const other = await Promise.all(
      recordOps.map((action) => recordsSession(action, ['globex#slack_post_message#0f'])),
    );
    const lookalike = await recordsSession('dynamodb:GetItem', ['acme-2#slack_post_message#0f']);
    const scan = await recordsSession('dynamodb:Scan', undefined);
    const query = await recordsSession('dynamodb:Query', ['acme#slack_post_message#0f']);
    const untagged = await decide({
      principal: sessionOf(arnIn(platform, recordsRoleId), 'untagged'),
      identityPolicies: identityPoliciesOf(platform, recordsRoleId),
      action: 'dynamodb:GetItem',
      resource: idempotencyArn,
      resourceAccount: PLATFORM,
      context: { 'dynamodb:LeadingKeys': ['acme#slack_post_message#0f'] },
    });

    // Assess
    expect(own).toEqual(recordOps.map(() => 'Allowed'));
    expect(other).toEqual(recordOps.map(() => 'ImplicitlyDenied'));
    expect({ lookalike, scan, query, untagged }).toEqual({
      lookalike: 'ImplicitlyDenied',
      scan: 'ImplicitlyDenied',
      query: 'ImplicitlyDenied',
      untagged: 'ImplicitlyDenied',
    });
  });
});

describe('run workspaces and run records by tenant, proved on the synthesized policies', () => {
  const objectOps = ['s3:GetObject', 's3:PutObject'];
  const recordOps = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
  const snapshotTools = toolCatalog
    .functionTools()
    .filter((entry) => entry.spec.workspaceAccess !== undefined)
    .map((entry) => entry.spec.name);
  let runDataRoleId: string;
  let engineRoleId: string;
  let bucket: string;
  let recordsArn: string;

  beforeAll(() => {
    const { stack, template } = synthesizePlatform();
    runDataRoleId = logicalIdOf(stack.platform.runData.role);
    engineRoleId = roleOf(template, logicalIdOf(stack.platform.engine.lambdaFunction));
    bucket = arnIn(platform, logicalIdOf(stack.platform.runWorkspace.bucket));
    recordsArn = arnIn(platform, logicalIdOf(stack.platform.runRecordsTable));
  });

  const runDataTarget = () => ({
    arn: arnIn(platform, runDataRoleId),
    account: PLATFORM,
    trust: trustPolicyOf(platform, runDataRoleId),
  });
  const engineRole = () => {
    const arn = arnIn(platform, engineRoleId);
    return { arn, session: sessionOf(arn, 'engine'), policies: identityPoliciesOf(platform, engineRoleId) };
  };

  /** A request of a run-data session tagged `tenant` (no tag: `null`). */
  function runDataSession(
    action: string,
    resource: string,
    context: Record<string, string | string[]>,
    tenant: string | null = 'acme',
  ) {
    const arn = arnIn(platform, runDataRoleId);
    return decide({
      principal: sessionOf(arn, `etp-secrets.${tenant ?? 'untagged'}`),
      identityPolicies: identityPoliciesOf(platform, runDataRoleId),
      action,
      resource,
      resourceAccount: PLATFORM,
      context: {
        'aws:PrincipalArn': arn,
        ...(tenant ? { 'aws:PrincipalTag/etp-tenant': tenant } : {}),
        ...context,
      },
    });
  }
  const object = (key: string) => `${bucket}/${key}`;
  const listing = (prefix: string | undefined, tenant: string | null = 'acme') =>
    runDataSession('s3:ListBucket', bucket, prefix === undefined ? {} : { 's3:prefix': prefix }, tenant);

  it('names the engine role under the path the run-data role trusts', () => {
    expect(arnIn(platform, engineRoleId)).toMatch(/:role\/etp-engine\//);
  });

  it.each([
    ['the dispatcher', () => dispatcherRole()],
    ['the engine', () => engineRole()],
  ])('lets %s open a run-data session tagged with a tenant', async (_who, caller) => {
    // Act
    const decisions = await assume(caller(), runDataTarget(), readerTags('acme'));

    // Assess
    expect(decisions).toEqual(ALLOWED3);
  });

  it.each([
    ['the dispatcher', () => dispatcherRole()],
    ['the engine', () => engineRole()],
  ])('refuses %s a run-data session without the tenant tag, or with another tag', async (_who, caller) => {
    // Act
    const untagged = await assume(caller(), runDataTarget(), { 'sts:SourceIdentity': 'etp.acme' });
    const extra = await assume(caller(), runDataTarget(), {
      ...readerTags('acme'),
      'aws:RequestTag/etp-run': 'r1',
      'aws:TagKeys': ['etp-tenant', 'etp-run'],
    });

    // Assess
    expect(untagged[1]).not.toBe('Allowed');
    expect(extra[1]).not.toBe('Allowed');
  });

  it.each([
    ['the dispatcher', () => dispatcherRole()],
    ['the engine', () => engineRole()],
  ])("gives %s no right of its own on any tenant's runs, listings or run records", async (_who, caller) => {
    // Prepare
    const { session, policies } = caller();
    const ask = (action: string, resource: string, context: Record<string, string | string[]> = {}) =>
      decide({
        principal: session,
        identityPolicies: policies,
        action,
        resource,
        resourceAccount: PLATFORM,
        context,
      });

    // Act
    const decisions = await Promise.all([
      ...objectOps.map((action) => ask(action, object('runs/acme/aws_pulse/r1/results/collect/0.json'))),
      ...objectOps.map((action) => ask(action, object('scratch/acme/r1/notes.md'))),
      ask('s3:ListBucket', bucket, { 's3:prefix': 'runs/' }),
      ...recordOps.map((action) => ask(action, recordsArn, { 'dynamodb:LeadingKeys': ['acme'] })),
    ]);

    // Assess
    expect(decisions.every((decision) => decision !== 'Allowed')).toBe(true);
  });

  it.each(toolCatalog.functionTools().map((entry) => entry.spec.name))(
    '%s may open no run-data session, even with every sts: action',
    async (tool) => {
      // Prepare
      const role = toolRole(tool);

      // Act
      const [decision] = await assume(
        { ...role, policies: [...role.policies, STS_ANYTHING] },
        runDataTarget(),
        readerTags('acme'),
      );

      // Assess
      expect(decision).toBe('ImplicitlyDenied');
    },
  );

  it("a run-data session tagged acme reads and writes acme's workspaces and no other tenant's", async () => {
    // Act
    const own = await Promise.all(
      ['runs/acme/aws_pulse/r1/results/collect/0.json', 'scratch/acme/r1/notes.md'].flatMap((key) =>
        objectOps.map((action) => runDataSession(action, object(key), {})),
      ),
    );
    const others = await Promise.all(
      [
        'runs/globex/aws_pulse/r1/results/collect/0.json',
        'scratch/globex/r1/notes.md',
        'runs/acme-2/aws_pulse/r1/summary.json',
        'runs/acmeX/aws_pulse/r1/summary.json',
        'results/acme/r1.json',
        'runs/acme',
      ].flatMap((key) => objectOps.map((action) => runDataSession(action, object(key), {}))),
    );
    const untagged = await runDataSession(
      's3:GetObject',
      object('runs/acme/aws_pulse/r1/summary.json'),
      {},
      null,
    );
    const deleted = await runDataSession(
      's3:DeleteObject',
      object('runs/acme/aws_pulse/r1/summary.json'),
      {},
    );

    // Assess
    expect(own).toEqual(own.map(() => 'Allowed'));
    expect(others).toEqual(others.map(() => 'ImplicitlyDenied'));
    expect({ untagged, deleted }).toEqual({ untagged: 'ImplicitlyDenied', deleted: 'ImplicitlyDenied' });
  });

  it("a run-data session tagged acme lists under acme's prefixes only", async () => {
    // Act
    const decisions = {
      ownRun: await listing('runs/acme/aws_pulse/r1/'),
      ownFile: await listing('runs/acme/aws_pulse/r1/summary.json'),
      ownScratch: await listing('scratch/acme/r1/'),
      otherTenant: await listing('runs/globex/'),
      lookalike: await listing('runs/acme-2/'),
      withoutSlash: await listing('runs/acme'),
      everyRun: await listing('runs/'),
      wholeBucket: await listing(undefined),
      untagged: await listing('runs/acme/', null),
    };

    // Assess
    expect(decisions).toEqual({
      ownRun: 'Allowed',
      ownFile: 'Allowed',
      ownScratch: 'Allowed',
      otherTenant: 'ImplicitlyDenied',
      lookalike: 'ImplicitlyDenied',
      withoutSlash: 'ImplicitlyDenied',
      everyRun: 'ImplicitlyDenied',
      wholeBucket: 'ImplicitlyDenied',
      untagged: 'ImplicitlyDenied',
    });
  });

  it("a run-data session tagged acme gets, puts and updates acme's run records and no other tenant's", async () => {
    // Act
    const own = await Promise.all(
      recordOps.map((action) => runDataSession(action, recordsArn, { 'dynamodb:LeadingKeys': ['acme'] })),
    );
    const other = await Promise.all(
      recordOps.map((action) => runDataSession(action, recordsArn, { 'dynamodb:LeadingKeys': ['globex'] })),
    );
    const scan = await runDataSession('dynamodb:Scan', recordsArn, {});
    const query = await runDataSession('dynamodb:Query', recordsArn, { 'dynamodb:LeadingKeys': ['acme'] });
    const deleted = await runDataSession('dynamodb:DeleteItem', recordsArn, {
      'dynamodb:LeadingKeys': ['acme'],
    });
    const untagged = await runDataSession(
      'dynamodb:GetItem',
      recordsArn,
      { 'dynamodb:LeadingKeys': ['acme'] },
      null,
    );

    // Assess
    expect(own).toEqual(recordOps.map(() => 'Allowed'));
    expect(other).toEqual(recordOps.map(() => 'ImplicitlyDenied'));
    expect({ scan, query, deleted, untagged }).toEqual({
      scan: 'ImplicitlyDenied',
      query: 'ImplicitlyDenied',
      deleted: 'ImplicitlyDenied',
      untagged: 'ImplicitlyDenied',
    });
  });

  it('has snapshot tools that keep files in the workspace to prove the listing on', () => {
    expect(snapshotTools.length).toBeGreaterThan(0);
  });

  it.each(toolCatalog.functionTools().map((entry) => entry.spec.name))(
    '%s lists no run of the workspace bucket, nor the bucket whole',
    async (tool) => {
      // Prepare
      const role = toolRole(tool);
      const ask = (prefix?: string) =>
        decide({
          principal: role.session,
          identityPolicies: role.policies,
          action: 's3:ListBucket',
          resource: bucket,
          resourceAccount: PLATFORM,
          context: prefix === undefined ? {} : { 's3:prefix': prefix },
        });

      // Act
      const decisions = await Promise.all([
        ask(undefined),
        ask('runs/'),
        ask('runs/globex/'),
        ask('runs/acme/aws_pulse/r1/'),
        ask('scratch/acme/'),
      ]);

      // Assess
      expect(decisions.every((decision) => decision !== 'Allowed')).toBe(true);
    },
  );

  /**
   * The workspace files a tool's spec names (`workspaceAccess`) in a run of `tenant`,
   * a wildcard filled with a report time as the tools name their files
   * (functions/tools/snapshots/findings/store.ts, athena/settings.ts).
   */
  const keptFiles = (tool: string, tenant: string, runId = 'r1') =>
    (toolCatalog.get(tool).workspaceAccess?.paths ?? []).map(
      (path) =>
        `${workspaceRoot({ tenant, scenario: 'snapshot_forensics', runId })}${path.replaceAll('*', '2026-03-10T01-00Z')}`,
    );

  it.each(snapshotTools)(
    "%s reaches no tenant's workspace file it keeps, nor lists it, with its own role",
    async (tool) => {
      // Prepare
      const role = toolRole(tool);
      const ask = (action: string, resource: string, context: Record<string, string> = {}) =>
        decide({
          principal: role.session,
          identityPolicies: role.policies,
          action,
          resource,
          resourceAccount: PLATFORM,
          context,
        });

      // Act
      const files = ['acme', 'globex'].flatMap((tenant) => keptFiles(tool, tenant));
      const decisions = await Promise.all(
        files.flatMap((key) => [
          ...objectOps.map((action) => ask(action, object(key))),
          ask('s3:ListBucket', bucket, { 's3:prefix': key }),
        ]),
      );

      // Assess: explicitly, so no Allow added to the role later can open it
      expect(files.length).toBeGreaterThan(0);
      expect(decisions).toEqual(decisions.map(() => 'ExplicitlyDenied'));
    },
  );

  describe.each(snapshotTools)('the run-data session the dispatcher vends for a %s call of acme', (tool) => {
    const spec = toolCatalog.get(tool);
    const access = spec.workspaceAccess ?? { access: 'read' as const, paths: [] };
    /** The session policy the dispatcher's vendor opens the session with, for run r1 of acme. */
    const sessionPolicy = () =>
      JSON.parse(
        workspaceSessionPolicy({
          partition: 'aws',
          bucket: bucket.split(':::')[1] ?? '',
          run: { tenant: 'acme', scenario: 'snapshot_forensics', runId: 'r1' },
          paths: access.paths,
          access: access.access,
        }),
      );
    const ask = (action: string, resource: string, context: Record<string, string | string[]> = {}) => {
      const arn = arnIn(platform, runDataRoleId);
      return decide({
        principal: sessionOf(arn, 'etp-secrets.acme'),
        identityPolicies: identityPoliciesOf(platform, runDataRoleId),
        sessionPolicy: sessionPolicy(),
        action,
        resource,
        resourceAccount: PLATFORM,
        context: { 'aws:PrincipalArn': arn, 'aws:PrincipalTag/etp-tenant': 'acme', ...context },
      });
    };
    const allowed = access.access === 'read' ? ['s3:GetObject'] : objectOps;

    it("reaches this run's files it keeps of acme, as its spec allows, and lists exactly them", async () => {
      // Prepare
      const own = keptFiles(tool, 'acme');

      // Act
      const reached = await Promise.all(
        own.flatMap((key) => allowed.map((action) => ask(action, object(key)))),
      );
      const listed = await Promise.all(own.map((key) => ask('s3:ListBucket', bucket, { 's3:prefix': key })));
      const written = await Promise.all(
        access.access === 'read' ? own.map((key) => ask('s3:PutObject', object(key))) : [],
      );

      // Assess
      expect(own.length).toBeGreaterThan(0);
      expect({ reached, listed, written }).toEqual({
        reached: reached.map(() => 'Allowed'),
        listed: own.map(() => 'Allowed'),
        written: written.map(() => 'ImplicitlyDenied'),
      });
    });

    it("reaches no other tenant's file, no other run's, no other file of the run and no other tool's", async () => {
      // Prepare: the files every other workspace tool keeps in the same run, unless this one keeps them too
      const own = keptFiles(tool, 'acme');
      const otherTools = snapshotTools
        .flatMap((other) => keptFiles(other, 'acme'))
        .filter((key) => !own.includes(key));
      const keys = [
        ...keptFiles(tool, 'globex'),
        ...keptFiles(tool, 'acme-2'),
        ...keptFiles(tool, 'acme', 'r2'),
        ...new Set(otherTools),
        'runs/acme/snapshot_forensics/r1/summary.json',
        'runs/acme/snapshot_forensics/r1/results/scan/0.json',
        'scratch/acme/r1/snapshots/findings.json',
        'scratch/acme/r1/snapshots/athena/snapshot_stats-2026-03-10T01-00Z.json',
      ];

      // Act
      const objects = await Promise.all(
        keys.flatMap((key) => objectOps.map((action) => ask(action, object(key)))),
      );
      const listings = await Promise.all(
        [
          ...keys,
          'runs/acme/snapshot_forensics/r1/',
          'runs/acme/snapshot_forensics/r1/snapshots/',
          'runs/acme/snapshot_forensics/r1/snapshots/athena/',
          'runs/acme/',
          'runs/globex/',
        ].map((prefix) => ask('s3:ListBucket', bucket, { 's3:prefix': prefix })),
      );
      const records = await ask('dynamodb:GetItem', recordsArn, { 'dynamodb:LeadingKeys': ['acme'] });

      // Assess
      expect(objects).toEqual(objects.map(() => 'ImplicitlyDenied'));
      expect(listings).toEqual(listings.map(() => 'ImplicitlyDenied'));
      expect(records).toBe('ImplicitlyDenied');
    });
  });

  describe("the run-data session the dispatcher vends for a plan call of acme's, whose tool claim-checks its own result", () => {
    const ask = (action: string, resource: string, context: Record<string, string | string[]> = {}) => {
      const arn = arnIn(platform, runDataRoleId);
      return decide({
        principal: sessionOf(arn, 'etp-secrets.acme'),
        identityPolicies: identityPoliciesOf(platform, runDataRoleId),
        sessionPolicy: JSON.parse(
          workspaceSessionPolicy({
            partition: 'aws',
            bucket: bucket.split(':::')[1] ?? '',
            run: { tenant: 'acme', scenario: 'aws_pulse', runId: 'r1' },
            paths: [],
            access: 'read',
            claimChecks: true,
          }),
        ),
        action,
        resource,
        resourceAccount: PLATFORM,
        context: { 'aws:PrincipalArn': arn, 'aws:PrincipalTag/etp-tenant': 'acme', ...context },
      });
    };

    it("writes this run's results only: no read, no other run's, tenant's or file, no listing", async () => {
      // Act
      const own = await ask('s3:PutObject', object('runs/acme/aws_pulse/r1/results/collect/0.json'));
      const others = await Promise.all([
        ask('s3:GetObject', object('runs/acme/aws_pulse/r1/results/collect/0.json')),
        ...[
          'runs/globex/aws_pulse/r1/results/collect/0.json',
          'runs/acme-2/aws_pulse/r1/results/collect/0.json',
          'runs/acme/aws_pulse/r2/results/collect/0.json',
          'runs/acme/aws_pulse/r1/summary.json',
          'scratch/acme/r1/results/collect/0.json',
        ].map((key) => ask('s3:PutObject', object(key))),
        ask('s3:ListBucket', bucket, { 's3:prefix': 'runs/acme/aws_pulse/r1/results/' }),
      ]);

      // Assess
      expect({ own, others }).toEqual({ own: 'Allowed', others: others.map(() => 'ImplicitlyDenied') });
    });
  });
});

describe('cross-account access, proved on the synthesized policies of both stacks', () => {
  const customerRoleArn = `arn:aws:iam::${CUSTOMER}:role/ExternalToolsPlatformAudit`;
  const callTags = (tenant: string) => ({
    'aws:RequestTag/etp-tenant': tenant,
    'aws:RequestTag/etp-scenario': 'aws_pulse',
    'aws:RequestTag/etp-run': 'run-1',
    'aws:TagKeys': ['etp-tenant', 'etp-scenario', 'etp-run'],
    'sts:SourceIdentity': `etp.${tenant}`,
  });
  const customerTarget = () => ({
    arn: arnIn(customer, customerRoleId),
    account: CUSTOMER,
    trust: trustPolicyOf(customer, customerRoleId),
  });

  it('names the customer role as the platform defines it', () => {
    expect(arnIn(customer, customerRoleId)).toBe(customerRoleArn);
  });

  it.each(awsTools.map((entry) => entry.spec.name))(
    '%s may assume the customer role with the ExternalId, its tenant and the call tags',
    async (tool) => {
      // Act
      const decisions = await assume(toolRole(tool), customerTarget(), {
        ...callTags('acme'),
        'sts:ExternalId': EXTERNAL_ID,
      });

      // Assess
      expect(decisions).toEqual(ALLOWED3);
    },
  );

  it.each([
    ['a wrong ExternalId', { ...callTags('acme'), 'sts:ExternalId': 'guessed' }],
    ['no ExternalId', { ...callTags('acme') }],
    ['another tenant’s session (confused deputy)', { ...callTags('globex'), 'sts:ExternalId': EXTERNAL_ID }],
    ['no source identity', { ...callTags('acme'), 'sts:ExternalId': EXTERNAL_ID, 'sts:SourceIdentity': '' }],
  ])('is refused the customer role with %s', async (_kind, context) => {
    // Act
    const [assumeRole] = await assume(toolRole('aws_ec2_inventory'), customerTarget(), context);

    // Assess
    expect(assumeRole).not.toBe('Allowed');
  });

  it('lets an AWS tool assume no other role of any account', async () => {
    // Prepare: a role that trusts the platform account without conditions.
    const other = `arn:aws:iam::${CUSTOMER}:role/OrganizationAccountAccessRole`;
    const trust = {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${PLATFORM}:root` }, Action: 'sts:AssumeRole' },
      ],
    };

    // Act
    const [decision] = await assume(
      toolRole('aws_ec2_inventory'),
      { arn: other, account: CUSTOMER, trust },
      callTags('acme'),
    );

    // Assess
    expect(decision).toBe('ImplicitlyDenied');
  });

  it('refuses the customer role to a platform role outside the AWS tool path', async () => {
    // Act
    const decisions = await assume(toolRole('slack_post_message'), customerTarget(), {
      ...callTags('acme'),
      'sts:ExternalId': EXTERNAL_ID,
    });

    // Assess
    expect(decisions[0]).toBe('ImplicitlyDenied');
  });
});
