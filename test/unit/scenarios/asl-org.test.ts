import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  directoryObjectStore,
  LOCAL_DISTRIBUTED_MAP_RESOURCE,
  routeDistributedMaps,
} from '../../../bin/local/local-distributed-map';
import { executeLocally, type TaskRouter } from '../../../bin/local/local-execution';
import { MAX_LISTED_ORG_IDS, resolveInput } from '../../../functions/engine/inputs';
import { ORG_INLINE_ACCOUNTS_MAX, STATE_BUDGET_BYTES } from '../../../functions/engine/limits';
import {
  DISPATCHER_ARN_PLACEHOLDER,
  ENGINE_ARN_PLACEHOLDER,
  scenarioToAsl,
  WAIT_FOR_TASK_TOKEN_RESOURCE,
} from '../../../lib/scenarios/asl';
import { maxInputBytesPerBatch } from '../../../lib/scenarios/asl-states/org';
import { WORKSPACE_BUCKET_PLACEHOLDER } from '../../../lib/scenarios/asl-states/tasks';
import { worstCaseState } from '../../../lib/scenarios/budget';
import { accountConcurrency, functionsPerInFlightCall } from '../../../lib/scenarios/concurrency-budget';
import type { PlanLevel } from '../../../lib/scenarios/model';
import { scenarioOf } from '../../helpers/scenarios';

const scenario = scenarioOf({
  name: 'org_layout',
  description: 'A per-account plan, then a report.',
  inputs: {
    tenant: { type: 'string', description: 'Tenant.', default: 'default' },
    regions: { type: 'regions', description: 'Regions.', default: 'all' },
    accounts: { type: 'accounts', description: 'Accounts.', default: 'all' },
  },
  levels: [
    {
      name: 'collect',
      intra_tools: ['aws_ebs_inventory', 'aws_iam_audit', 'aws_eips_audit'],
      concurrency: 2,
      track_findings: true,
      for_each_account: { accounts_per_child: 3, tolerated_failure_percentage: 10 },
      calls: [
        { tool: 'aws_ebs_inventory', args: { regions: '{{input.regions}}', topN: 5 } },
        { tool: 'aws_iam_audit', args: {} },
        { tool: 'aws_eips_audit', args: { regions: '{{input.regions}}' } },
      ],
    },
  ],
});
const collect = scenario.levels[0] as PlanLevel;
const BUCKET = 'etp-runs-local';

describe('per-account levels in the definition', () => {
  const definition = scenarioToAsl(scenario, { lambdaConcurrency: 600 });
  // biome-ignore lint/suspicious/noExplicitAny: nested ASL JSON and engine events, read by the assertions
  const map = definition.States.collect_accounts as Record<string, any>;

  it('fans out on a Distributed Map of STANDARD children, items from the workspace, results written there', () => {
    expect(map.ItemProcessor.ProcessorConfig).toEqual({ Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' });
    expect(map.ItemReader).toEqual({
      Resource: 'arn:aws:states:::s3:getObject',
      ReaderConfig: { InputType: 'JSON' },
      Parameters: {
        Bucket: WORKSPACE_BUCKET_PLACEHOLDER,
        'Key.$':
          "States.Format('runs/{}/org_layout/{}/levels/collect/accounts.json', $.input.tenant, $$.Execution.Name)",
      },
    });
    expect(map.ResultWriter.Parameters).toEqual({
      Bucket: WORKSPACE_BUCKET_PLACEHOLDER,
      'Prefix.$':
        "States.Format('runs/{}/org_layout/{}/levels/collect/map', $.input.tenant, $$.Execution.Name)",
    });
    expect(map.ItemBatcher.MaxItemsPerBatch).toBe(3);
    expect(map.ToleratedFailurePercentage).toBe(10);
    expect(definition.States.collect_accounts_inline).toMatchObject({ ItemsPath: '$.org.items' });
    expect(definition.States.collect_accounts_inline).not.toHaveProperty('ItemReader');
  });

  it('takes MaxConcurrency from the concurrency budget: 600 / (2 calls × 1 function) / 3 accounts per child', () => {
    expect(functionsPerInFlightCall(collect)).toBe(1);
    expect(accountConcurrency(collect, 600, 3)).toEqual({
      functionsPerAccount: 2,
      accountsAtOnce: 300,
      maxConcurrency: 100,
    });
    expect(map.MaxConcurrency).toBe(100);
    // The default budget: 1,000 / 2 / 3.
    expect(scenarioToAsl(scenario).States.collect_accounts).toMatchObject({ MaxConcurrency: 166 });
  });

  it('names every state once across the whole definition, the two Distributed Maps’ children apart', () => {
    // Step Functions requires state names unique across the state machine, Map processors included.
    const names = (states: Record<string, Record<string, unknown>>): string[] =>
      Object.entries(states).flatMap(([name, state]) => [
        name,
        ...(state.ItemProcessor
          ? names((state.ItemProcessor as { States: Record<string, Record<string, unknown>> }).States)
          : []),
      ]);
    const all = names(definition.States as Record<string, Record<string, unknown>>);
    expect(all.length).toBe(new Set(all).size);
    const inline = definition.States.collect_accounts_inline as { ItemProcessor: { StartAt: string } };
    expect(inline.ItemProcessor.StartAt).toBe('collect_inline_account_batch');
    expect(map.ItemProcessor.StartAt).toBe('collect_account_batch');
  });

  it("bounds each child's input: 3 account items, the run's input and the batch identity", () => {
    expect(map.ItemBatcher.MaxInputBytesPerBatch).toBe(3 * 256 + 8 * 1024 + 1024);
    expect(maxInputBytesPerBatch(3)).toBe(3 * 256 + 8 * 1024 + 1024);
    // Never past the service's 256 KiB.
    expect(maxInputBytesPerBatch(10_000)).toBe(256 * 1024);
  });

  it('sends each call with the parent run id and the member account', () => {
    const batch = map.ItemProcessor.States.collect_account_batch;
    const calls = batch.ItemProcessor.States.collect_account_calls;
    expect(calls.ItemSelector).toMatchObject({ 'runId.$': '$.runId', 'account.$': '$.account.accountId' });
    // Each call waits for its task token, the account passed on with the envelope.
    expect(calls.ItemProcessor.States.collect_account_call).toMatchObject({
      Resource: WAIT_FOR_TASK_TOKEN_RESOURCE,
      Parameters: {
        FunctionName: DISPATCHER_ARN_PLACEHOLDER,
        Payload: { 'account.$': '$.account', 'runId.$': '$.runId', 'taskToken.$': '$$.Task.Token' },
      },
    });
    expect(batch.MaxConcurrency).toBe(3);
  });

  it('keeps the worst-case state within the budget, whatever the number of accounts', () => {
    const worst = worstCaseState(scenario, 8 * 1024);
    expect(worst.bytes).toBeLessThanOrEqual(STATE_BUDGET_BYTES);
    expect(worst.parts.map((part) => part.part)).toContain('collect record');
  });

  it('refuses a 0 or fractional budget with what is accepted', () => {
    expect(() => accountConcurrency(collect, 0, 1)).toThrow(
      'lambdaConcurrency must be a whole number of at least 1, got 0',
    );
  });

  it('routes the Distributed Maps locally and leaves the inline ones', () => {
    const routed = routeDistributedMaps(definition);
    expect(Object.keys(routed.maps)).toEqual(['collect_accounts', 'collect_accounts_inline']);
    expect(routed.states.collect_accounts).toEqual({
      Type: 'Task',
      Resource: LOCAL_DISTRIBUTED_MAP_RESOURCE,
      Comment: map.Comment,
      ResultPath: '$.org.map',
      Catch: map.Catch,
      Next: 'collect_done',
    });
  });
});

describe('the definition run locally, Distributed Map routed', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'etp-org-asl-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const definition = JSON.parse(
    JSON.stringify(scenarioToAsl(scenario, { dispatcherArn: 'dispatcher', engineArn: 'engine' }))
      .replaceAll(DISPATCHER_ARN_PLACEHOLDER, 'dispatcher')
      .replaceAll(ENGINE_ARN_PLACEHOLDER, 'engine')
      .replaceAll(WORKSPACE_BUCKET_PLACEHOLDER, BUCKET),
  );

  /** Engine and dispatcher answered here: accounts ending in 7 have their record fail. */
  async function run(accounts: number) {
    const objects = directoryObjectStore(dir, BUCKET);
    const calls: Record<string, unknown>[] = [];
    const ends: Record<string, unknown>[] = [];
    const items = Array.from({ length: accounts }, (_, i) => ({
      accountId: String(100000000000 + i),
      name: `a${i}`,
    }));
    const route: TaskRouter = (state) => async (payload) => {
      // biome-ignore lint/suspicious/noExplicitAny: nested ASL JSON and engine events, read by the assertions
      const event = payload as Record<string, any>;
      // A plan call's `.waitForTaskToken` Task: answered with its result, as the tool's function answers its token.
      if (state.resource === WAIT_FOR_TASK_TOKEN_RESOURCE && event.FunctionName === 'dispatcher') {
        const { taskToken, ...call } = event.Payload;
        expect(typeof taskToken).toBe('string');
        calls.push(call);
        return {
          ok: true,
          tool: call.tool,
          callId: call.callId,
          value: {},
          truncated: false,
          durationMs: 1,
        };
      }
      if (event.action === 'org_targets') {
        const key = `runs/default/org_layout/${event.runId}/levels/collect/accounts.json`;
        await objects.put(BUCKET, key, JSON.stringify(items));
        return {
          accounts: accounts,
          previousRunId: null,
          ...(accounts <= ORG_INLINE_ACCOUNTS_MAX ? { items } : {}),
        };
      }
      if (event.action === 'account_done') {
        if (event.account.accountId.endsWith('7'))
          throw Object.assign(new Error('boom'), { name: 'EngineFailed' });
        return {
          accountId: event.account.accountId,
          name: event.account.name,
          status: 'audited',
          failedChecks: [],
        };
      }
      if (event.action === 'org_done') {
        ends.push(event);
        return { input: event.input, levels: { collect: { kind: 'organization' } } };
      }
      if (event.action === 'start')
        return { input: { tenant: 'default', regions: 'all', accounts: 'all' }, levels: {} };
      return { tenant: 'default', completion: { status: 'SUCCEEDED', summary: 'done', cost: null } };
    };
    let largest = 0;
    const output = await executeLocally(definition, { tenant: 'default' }, route, {
      runId: 'org-run-1',
      objects,
      onStateEntered: (event) => {
        largest = Math.max(largest, Buffer.byteLength(JSON.stringify(event.data)));
      },
    });
    return { output, calls, ends, largest };
  }

  it('reads 100 accounts from the workspace, 3 per child, and writes every record there', async () => {
    const { calls, ends, largest } = await run(100);
    expect(calls).toHaveLength(300);
    expect(new Set(calls.map((call) => `${call.account}/${call.callId}`)).size).toBe(300);
    expect(calls.every((call) => call.runId === 'org-run-1' && call.tenant === 'default')).toBe(true);
    // biome-ignore lint/suspicious/noExplicitAny: nested ASL JSON and engine events, read by the assertions
    const org = ends[0]?.org as Record<string, any>;
    expect(org.mapError).toBeUndefined();
    const manifestKey = org.map.ResultWriterDetails.Key as string;
    expect(manifestKey).toMatch(
      /^runs\/default\/org_layout\/org-run-1\/levels\/collect\/map\/[0-9a-f-]{36}\/manifest\.json$/,
    );
    const manifest = JSON.parse(readFileSync(path.join(dir, manifestKey), 'utf8'));
    expect(manifest.ResultFiles.FAILED).toEqual([]);
    const succeeded = JSON.parse(readFileSync(path.join(dir, manifest.ResultFiles.SUCCEEDED[0].Key), 'utf8'));
    // ceil(100 / 3) children; each output is its batch's records (a failed account's Pass record included).
    expect(succeeded).toHaveLength(34);
    const records = succeeded.flatMap((entry: { Output: string }) => JSON.parse(entry.Output));
    expect(records).toHaveLength(100);
    expect(records.filter((record: { status: string }) => record.status === 'failed')).toHaveLength(10);
    expect(records.find((record: { accountId: string }) => record.accountId === '100000000007')).toEqual({
      accountId: '100000000007',
      name: 'a7',
      status: 'failed',
      reason: 'its results could not be recorded (EngineFailed)',
    });
    // Nothing of the 100 records is in the parent's state.
    expect(largest).toBeLessThan(8 * 1024);
  }, 60_000);

  it('refuses a definition whose Distributed Map processor is invalid before any state runs (the service validates the whole definition)', async () => {
    // Prepare: the per-account processor starts at a state it does not have
    const broken = structuredClone(definition);
    broken.States.collect_accounts.ItemProcessor.StartAt = 'no_such_state';
    const entered: string[] = [];

    // Act
    const running = executeLocally(broken, { tenant: 'default' }, () => async () => ({}), {
      runId: 'org-invalid',
      onStateEntered: (event) => entered.push(event.name),
    });

    // Assess
    await expect(running).rejects.toThrow('State machine definition is invalid');
    await expect(running).rejects.toThrow('no_such_state');
    expect(entered).toEqual([]);
  });

  it('carries few accounts inline (ItemsPath) and ends at org_done with no account', async () => {
    const few = await run(4);
    expect(few.calls).toHaveLength(12);
    const none = await run(0);
    expect(none.calls).toHaveLength(0);
    expect(none.ends[0]?.org).toEqual({ accounts: 0, previousRunId: null, items: [] });
  }, 60_000);
});

describe('per-account levels in the loader and the inputs', () => {
  const level = (args: Record<string, unknown>) => ({
    name: 'refs',
    description: 'd',
    inputs: { accounts: { type: 'accounts', description: 'Accounts.', default: 'all' } },
    levels: [
      {
        name: 'collect',
        intra_tools: ['aws_iam_audit'],
        for_each_account: {},
        calls: [{ tool: 'aws_iam_audit', args }],
      },
    ],
  });

  it('refuses a reference a child execution cannot read, saying what it may reference', () => {
    expect(() => scenarioOf(level({ topN: '{{run.id}}' }))).toThrow(
      '{{run.id}}: the calls of a per-account level (for_each_account) may reference inputs ({{input.regions}}), run.tenant and run.scenario only',
    );
  });

  it('defaults one account per child, 10 % tolerated failures and the aws_org_default target', () => {
    const loaded = scenarioOf(level({}));
    expect((loaded.levels[0] as PlanLevel).for_each_account).toEqual({
      accounts_per_child: 1,
      tolerated_failure_percentage: 10,
      org_secret: 'aws_org_default',
    });
  });

  it('accepts "all", account, OU and root ids, and says what is accepted otherwise', () => {
    const loaded = scenarioOf(level({}));
    expect(
      resolveInput(loaded, { tenant: 't', accounts: ['123456789012', 'ou-ab12-cd34ef56', 'r-ab12'] })
        .accounts,
    ).toEqual(['123456789012', 'ou-ab12-cd34ef56', 'r-ab12']);
    expect(() => resolveInput(loaded, { tenant: 't', accounts: ['12345'] })).toThrow(
      `accounts: expected "all" or a list of 1-${MAX_LISTED_ORG_IDS} 12-digit account ids, OU ids (ou-ab12-cd34ef56) or root ids (r-ab12), such as ["123456789012", "ou-ab12-cd34ef56"] (${MAX_LISTED_ORG_IDS} account ids fill the 8192-byte input: name OU ids for more), got a faulty entry in a list of 1: [0] "12345"`,
    );
  });
});
