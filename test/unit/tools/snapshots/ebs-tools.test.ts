import {
  AccessDeniedException,
  EBSClient,
  ListChangedBlocksCommand,
  ListSnapshotBlocksCommand,
} from '@aws-sdk/client-ebs';
import {
  DescribeRegionsCommand,
  DescribeSnapshotsCommand,
  type DescribeSnapshotsCommandInput,
  EC2Client,
  type Snapshot,
} from '@aws-sdk/client-ec2';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { defaultSnapshotClients } from '../../../../functions/tools/snapshots/clients';
import { createDiffSnapshotsTool } from '../../../../functions/tools/snapshots/diff-snapshots';
import { MemoryFindingsStore } from '../../../../functions/tools/snapshots/findings/store';
import { createInspectFindingTool } from '../../../../functions/tools/snapshots/inspect-finding';
import { createListSnapshotsTool } from '../../../../functions/tools/snapshots/list-snapshots';
import {
  createScanSnapshotsTool,
  type FindingsToolDeps,
} from '../../../../functions/tools/snapshots/scan-snapshots';
import { createSnapshotStatsTool } from '../../../../functions/tools/snapshots/snapshot-stats';
import { ec2Error, responseMetadata } from '../../../helpers/aws-errors';
import { expectFailure, expectSuccess, runAwsTool } from '../../../helpers/aws-tool';
import {
  changedBlocksPage,
  DOCUMENTED_BLOCK_TOKENS,
  DOCUMENTED_NEXT_TOKEN,
  snapshotBlocksPage,
  snapshotOf,
} from '../../../helpers/ebs-fixtures';
import { mockedClientRegion } from '../../../helpers/ec2-pages';

const ec2 = mockClient(EC2Client);
const ebs = mockClient(EBSClient);
const s3 = mockClient(S3Client);

const VOLUME = 'vol-049df61146c4d7901';
const OTHER_VOLUME = 'vol-0a1b2c3d4e5f60718';
const A = snapshotOf('snap-0000000000000000a', VOLUME, '2026-03-01T02:00:00.000Z');
const B = snapshotOf('snap-0000000000000000b', VOLUME, '2026-03-02T02:00:00.000Z');
const C = snapshotOf('snap-0000000000000000c', OTHER_VOLUME, '2026-03-02T03:00:00.000Z', { Encrypted: true });
const id = (s: Snapshot) => `ebs:eu-west-1:${s.SnapshotId}`;

/** DescribeSnapshots answered from `snapshots` as EC2 filters them (ids, volume-id, public). */
function describeSnapshots(snapshots: Snapshot[], publicIds: string[] = []): void {
  ec2.on(DescribeSnapshotsCommand).callsFake((input: DescribeSnapshotsCommandInput) => {
    if (input.SnapshotIds)
      return { Snapshots: snapshots.filter((s) => input.SnapshotIds?.includes(s.SnapshotId ?? '')) };
    const volumes = input.Filters?.find((f) => f.Name === 'volume-id')?.Values;
    let listed = volumes ? snapshots.filter((s) => volumes.includes(s.VolumeId ?? '')) : snapshots;
    if (input.RestorableByUserIds?.includes('all'))
      listed = listed.filter((s) => publicIds.includes(s.SnapshotId ?? ''));
    return { Snapshots: listed };
  });
}

function changedBlocksCalls() {
  return ebs.commandCalls(ListChangedBlocksCommand).map((call) => call.args[0].input);
}

beforeEach(() => {
  ec2.reset();
  ebs.reset();
  s3.reset();
  s3.on(ListBucketsCommand).resolves({ Buckets: [] });
});

describe('snapshot_stats of an EBS snapshot', () => {
  const tool = createSnapshotStatsTool(defaultSnapshotClients);

  it('counts written blocks over every page and new blocks against the previous snapshot of the volume', async () => {
    describeSnapshots([A, B, C]);
    const pages = [
      snapshotBlocksPage(0, 5, 'page-2'),
      snapshotBlocksPage(0, 0, DOCUMENTED_NEXT_TOKEN),
      snapshotBlocksPage(5, 5),
    ];
    // Tokens as sent: the SDK paginator reuses one input object, so recorded inputs all show the last token.
    const tokens: (string | undefined)[] = [];
    ebs.on(ListSnapshotBlocksCommand).callsFake((input: { NextToken?: string }) => {
      tokens.push(input.NextToken);
      return pages[tokens.length - 1];
    });
    ebs.on(ListChangedBlocksCommand).resolves(changedBlocksPage({ changed: 3, added: 2, removed: 1 }));

    const result = expectSuccess<Record<string, unknown>>(await runAwsTool(tool, { id: id(B) }));

    expect(result.value).toEqual({
      id: id(B),
      kind: 'ebs',
      source: `ebs:eu-west-1:${VOLUME}`,
      time: '2026-03-02T02:00:00.000Z',
      files: null,
      bytes: 10 * 524_288,
      new_bytes: 5 * 524_288,
      file_type_histogram: null,
      blocks: 10,
      blockSize: 524_288,
      volumeSizeGiB: 32,
      changedBlocks: 5,
      baseline: { id: id(A), time: '2026-03-01T02:00:00.000Z' },
      note: expect.stringContaining('never do'),
    });
    expect(changedBlocksCalls()).toEqual([
      expect.objectContaining({ FirstSnapshotId: A.SnapshotId, SecondSnapshotId: B.SnapshotId }),
    ]);
    expect(tokens).toEqual([undefined, 'page-2', DOCUMENTED_NEXT_TOKEN]);
    const text = JSON.stringify(result);
    expect(DOCUMENTED_BLOCK_TOKENS.filter((token) => text.includes(token))).toEqual([]);
  });

  it("counts every block as new for a volume's first snapshot", async () => {
    describeSnapshots([A, B]);
    ebs.on(ListSnapshotBlocksCommand).resolves(snapshotBlocksPage(0, 4));

    const result = expectSuccess<Record<string, unknown>>(await runAwsTool(tool, { id: id(A) }));

    expect(result.value).toMatchObject({
      bytes: 4 * 524_288,
      new_bytes: 4 * 524_288,
      baseline: null,
      changedBlocks: null,
    });
    expect(result.value.note).toContain('every block counts as new');
    expect(changedBlocksCalls()).toEqual([]);
  });

  it('refuses a pending snapshot before listing blocks', async () => {
    describeSnapshots([{ ...B, State: 'pending', Progress: '80%' }]);

    const failure = expectFailure(await runAwsTool(tool, { id: id(B) }));

    expect(failure.error).toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('is pending'),
    });
    expect(ebs.commandCalls(ListSnapshotBlocksCommand)).toEqual([]);
  });

  it('reports a snapshot that does not exist as not_found', async () => {
    ec2
      .on(DescribeSnapshotsCommand)
      .rejects(ec2Error('InvalidSnapshot.NotFound', "The snapshot 'snap-0000000000000000b' does not exist."));

    const failure = expectFailure(await runAwsTool(tool, { id: id(B) }));

    expect(failure.error).toMatchObject({ code: 'not_found', service: 'ec2' });
  });

  it('reports a denied EBS direct API call as access_denied', async () => {
    describeSnapshots([A, B]);
    ebs.on(ListSnapshotBlocksCommand).rejects(
      new AccessDeniedException({
        message: 'User is not authorized to perform: ebs:ListSnapshotBlocks',
        Reason: 'UNAUTHORIZED_ACCOUNT',
        $metadata: responseMetadata(403),
      }),
    );

    const failure = expectFailure(await runAwsTool(tool, { id: id(B) }));

    expect(failure.error).toMatchObject({
      code: 'access_denied',
      details: { awsError: 'AccessDeniedException' },
    });
  });
});

describe('diff_snapshots of EBS snapshots', () => {
  const tool = createDiffSnapshotsTool(defaultSnapshotClients);

  it('tallies added, removed and changed blocks over every page, with sample block indexes', async () => {
    describeSnapshots([A, B]);
    ebs
      .on(ListChangedBlocksCommand)
      .resolvesOnce(changedBlocksPage({ changed: 4, added: 2 }, DOCUMENTED_NEXT_TOKEN))
      .resolvesOnce(changedBlocksPage({ first: 100, added: 1, removed: 3 }));

    const result = expectSuccess<Record<string, unknown>>(await runAwsTool(tool, { a: id(A), b: id(B) }));

    expect(result.value).toMatchObject({
      kind: 'ebs',
      a: id(A),
      b: id(B),
      source: `ebs:eu-west-1:${VOLUME}`,
      blockSize: 524_288,
      added: { blocks: 3, bytes: 3 * 524_288, sampleBlockIndexes: [4, 5, 100] },
      removed: { blocks: 3, bytes: 3 * 524_288, sampleBlockIndexes: [101, 102, 103] },
      changed: { blocks: 4, bytes: 4 * 524_288, sampleBlockIndexes: [0, 1, 2, 3] },
    });
    expect(JSON.stringify(result)).not.toContain(DOCUMENTED_BLOCK_TOKENS[0]);
  });

  it('refuses snapshots of different volumes as invalid_args', async () => {
    describeSnapshots([A, C]);

    const failure = expectFailure(await runAwsTool(tool, { a: id(A), b: id(C) }));

    expect(failure.error.code).toBe('invalid_args');
    expect(failure.error.message).toContain(`is of ${VOLUME}`);
    expect(changedBlocksCalls()).toEqual([]);
  });

  it.each([
    [
      { a: 'ebs:eu-west-1:snap-0000000000000000a', b: 's3_inventory:photos/daily/2026-03-01T01-00Z' },
      'same kind',
    ],
    [
      { a: 'ebs:eu-west-1:snap-0000000000000000a', b: 'ebs:us-east-1:snap-0000000000000000b' },
      'in one region',
    ],
    [
      { a: 's3_inventory:photos/daily/2026-03-01T01-00Z', b: 's3_inventory:photos/weekly/2026-03-02T01-00Z' },
      'same inventory configuration',
    ],
    [
      { a: 's3_inventory:photos/daily/2026-03-01T01-00Z', b: 's3_inventory:other/daily/2026-03-02T01-00Z' },
      'same inventory configuration',
    ],
    [
      { a: 'ebs:eu-west-1:snap-0000000000000000a', b: 'ebs:eu-west-1:snap-0000000000000000a' },
      'same snapshot',
    ],
    [
      {
        a: 's3_inventory:photos/daily/2026-03-01T01-00Z',
        b: 's3_inventory:photos/d%61ily/2026-03-01T01-00Z',
      },
      'same snapshot',
    ],
  ])('refuses %j before any remote call', async (args, problem) => {
    const failure = expectFailure(await runAwsTool(tool, args));

    expect(failure.error.code).toBe('invalid_args');
    expect(failure.error.message).toContain(problem);
    expect(ec2.calls()).toEqual([]);
    expect(s3.calls()).toEqual([]);
  });
});

describe('list_snapshots of EBS snapshots', () => {
  const tool = createListSnapshotsTool(defaultSnapshotClients);

  it("lists a volume's snapshots newest first with their state, encryption and public flag", async () => {
    describeSnapshots([A, B, C], [A.SnapshotId as string]);

    const result = expectSuccess<{ snapshots: Record<string, unknown>[]; matched: number }>(
      await runAwsTool(tool, { source: `ebs:eu-west-1:${VOLUME}` }),
    );

    expect(result.value.matched).toBe(2);
    expect(result.value.snapshots).toEqual([
      expect.objectContaining({
        id: id(B),
        kind: 'ebs',
        public: false,
        encrypted: false,
        state: 'completed',
      }),
      expect.objectContaining({
        id: id(A),
        source: `ebs:eu-west-1:${VOLUME}`,
        time: '2026-03-01T02:00:00.000Z',
        public: true,
        description: 'This is my snapshot',
        details: { volumeSizeGiB: 8, progress: '100%', storageTier: null },
      }),
    ]);
    expect(s3.calls()).toEqual([]);
  });

  it("applies since and limit over the account's snapshots and S3 inventories", async () => {
    describeSnapshots([A, B, C]);

    const result = expectSuccess<{ snapshots: { id: string }[]; matched: number }>(
      await runAwsTool(tool, { since: '2026-03-02', limit: 1 }),
    );

    expect(result.value.matched).toBe(2);
    expect(result.value.snapshots.map((s) => s.id)).toEqual([id(C)]);
    expect(s3.commandCalls(ListBucketsCommand)).toHaveLength(1);
  });
});

describe('scan_snapshots and inspect_finding over an EBS volume', () => {
  const days = Array.from({ length: 10 }, (_, d) =>
    snapshotOf(
      `snap-00000000000000${String(d).padStart(2, '0')}`,
      VOLUME,
      new Date(Date.UTC(2026, 2, 1 + d, 2)).toISOString(),
    ),
  );
  const now = Date.UTC(2026, 2, 10, 6);

  function deps(store: MemoryFindingsStore): FindingsToolDeps {
    return { clients: defaultSnapshotClients, findingsStore: () => store, now: () => now };
  }

  beforeEach(() => {
    describeSnapshots(days, [days[3]?.SnapshotId as string]);
    ebs.on(ListChangedBlocksCommand).resolves(changedBlocksPage({ changed: 60, added: 40 }));
    // The last day rewrites 10,000 blocks (4.9 GiB) against a usual 100.
    ebs
      .on(ListChangedBlocksCommand, { SecondSnapshotId: days[9]?.SnapshotId })
      .resolves(changedBlocksPage({ changed: 9_000, added: 1_000 }));
  });

  it('finds the change spike, the public and the unencrypted snapshots, and inspect_finding returns them as written', async () => {
    const store = new MemoryFindingsStore();
    const scan = createScanSnapshotsTool(deps(store));

    const result = expectSuccess<{
      findings: { total: number; top: { id: string; check: string; severity: string }[] };
    }>(await runAwsTool(scan, { sources: [`ebs:eu-west-1:${VOLUME}`], since: '2026-03-10' }));

    expect(result.value.findings.top.map((f) => `${f.check}:${f.severity}`)).toEqual([
      'public_snapshot:critical',
      'change_spike:high',
      'unencrypted_snapshot:medium',
    ]);
    const stored = await store.get({
      tenant: 'default',
      scenario: 'aws_pulse',
      runId: 'run-2024-05-01T00-00-00Z',
    });
    const spike = stored?.findings.find((f) => f.check === 'change_spike');
    expect(spike?.evidence).toMatchObject({
      newBytes: 10_000 * 524_288,
      newOrChangedBlocks: 10_000,
      baseline: { medianNewBytes: 100 * 524_288 },
      sampleBlockIndexes: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
    });
    expect(spike?.verify[0]).toContain(
      `--first-snapshot-id ${days[8]?.SnapshotId} --second-snapshot-id ${days[9]?.SnapshotId}`,
    );

    const inspect = createInspectFindingTool({ findingsStore: () => store });
    const inspected = expectSuccess(await runAwsTool(inspect, { id: spike?.id }));
    expect(inspected.value).toEqual(spike);
  });

  it('keeps the findings of a run: a second scan reuses them without calling AWS', async () => {
    const store = new MemoryFindingsStore();
    const scan = createScanSnapshotsTool(deps(store));
    const first = expectSuccess<{ findings: { total: number } }>(
      await runAwsTool(scan, { sources: [`ebs:eu-west-1:${VOLUME}`], since: '2026-03-10' }),
    );
    ec2.resetHistory();
    ebs.resetHistory();

    const second = expectSuccess<{ reused: boolean; findings: { total: number } }>(
      await runAwsTool(scan, { sources: [`ebs:eu-west-1:${OTHER_VOLUME}`] }),
    );

    expect(second.value.reused).toBe(true);
    expect(second.value.findings).toEqual(first.value.findings);
    expect(ec2.calls()).toEqual([]);
    expect(ebs.calls()).toEqual([]);
  });

  it('answers not_found for a finding the run does not have, and before any scan', async () => {
    const store = new MemoryFindingsStore();
    const inspect = createInspectFindingTool({ findingsStore: () => store });

    const before = expectFailure(await runAwsTool(inspect, { id: 'change_spike:0123456789abcdef' }));
    await runAwsTool(createScanSnapshotsTool(deps(store)), {
      sources: [`ebs:eu-west-1:${VOLUME}`],
      since: '2026-03-10',
    });
    const unknown = expectFailure(await runAwsTool(inspect, { id: 'change_spike:0123456789abcdef' }));

    expect(before.error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('scan_snapshots computes them'),
    });
    expect(unknown.error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('public_snapshot:'),
    });
  });

  it('refuses a malformed finding id or source before reading anything', async () => {
    const store = new MemoryFindingsStore();
    const get = jest.spyOn(store, 'get');

    const badId = expectFailure(
      await runAwsTool(createInspectFindingTool({ findingsStore: () => store }), { id: 'spike' }),
    );
    const badSource = expectFailure(
      await runAwsTool(createScanSnapshotsTool(deps(store)), {
        sources: ['ebs:eu-west-1:snap-0000000000000000a'],
      }),
    );

    expect(badId.error.code).toBe('invalid_args');
    expect(badSource.error).toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('is not an EBS volume id'),
    });
    expect(get).not.toHaveBeenCalled();
    expect(ec2.calls()).toEqual([]);
  });
});

describe('list_snapshots and scan_snapshots asked for a region the account has not enabled', () => {
  /** An opt-in region (Asia Pacific (Hong Kong)) the account has not opted in to. */
  const DISABLED = 'ap-east-1';

  beforeEach(() => {
    // The disabled region answers as EC2 does: AuthFailure, as if the keys were bad.
    ec2.on(DescribeSnapshotsCommand).callsFake(async (_input, getClient) => {
      if ((await mockedClientRegion(getClient)) === DISABLED)
        throw ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials');
      return { Snapshots: [A] };
    });
    // DescribeRegions (AllRegions: true), shaped as the EC2 API reference's "Region".
    ec2.on(DescribeRegionsCommand).resolves({
      Regions: [
        { RegionName: 'eu-west-1', OptInStatus: 'opt-in-not-required' },
        { RegionName: DISABLED, OptInStatus: 'not-opted-in' },
      ],
    });
  });

  it('list_snapshots lists the enabled region and says the other is not enabled, not that the keys are bad', async () => {
    const tool = createListSnapshotsTool(defaultSnapshotClients);

    const result = expectSuccess<{
      snapshots: { id: string }[];
      errors: { where: string; error: unknown }[];
    }>(await runAwsTool(tool, { regions: ['eu-west-1', DISABLED] }));

    expect(result.value.snapshots.map((s) => s.id)).toEqual([id(A)]);
    expect(result.value.errors).toEqual([
      {
        where: `ebs ${DISABLED}`,
        error: expect.objectContaining({
          code: 'opt_in_required',
          retryable: false,
          message: expect.stringContaining(`Region ${DISABLED} is not enabled for this account`),
        }),
      },
    ]);
  });

  it('scan_snapshots reports the region as not scanned with opt_in_required', async () => {
    const scan = createScanSnapshotsTool({
      clients: defaultSnapshotClients,
      findingsStore: () => new MemoryFindingsStore(),
      now: () => Date.UTC(2026, 2, 10, 6),
    });

    const result = expectSuccess<{ sources: { source: string; ok: boolean; error?: { code: string } }[] }>(
      await runAwsTool(scan, { regions: ['eu-west-1', DISABLED] }),
    );

    expect(result.value.sources.filter((s) => !s.ok)).toEqual([
      expect.objectContaining({
        source: `ebs:${DISABLED}`,
        error: expect.objectContaining({ code: 'opt_in_required' }),
      }),
    ]);
  });

  it('scan_snapshots names an EBS source in that region, or in a name that is no region, as such (not auth_failed)', async () => {
    const scan = createScanSnapshotsTool({
      clients: defaultSnapshotClients,
      findingsStore: () => new MemoryFindingsStore(),
      now: () => Date.UTC(2026, 2, 10, 6),
    });
    // Not a region: EC2 has no endpoint for it (ENOTFOUND, a network_error).
    ec2.on(DescribeSnapshotsCommand).callsFake(async (_input, getClient) => {
      const region = await mockedClientRegion(getClient);
      if (region === DISABLED)
        throw ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials');
      if (region === 'eu-nowhere-1')
        throw Object.assign(new Error('getaddrinfo ENOTFOUND ec2.eu-nowhere-1.amazonaws.com'), {
          code: 'ENOTFOUND',
        });
      return { Snapshots: [A] };
    });

    const result = expectSuccess<{ sources: { source: string; ok: boolean; error?: { code: string } }[] }>(
      await runAwsTool(scan, {
        sources: [`ebs:${DISABLED}:${VOLUME}`, `ebs:eu-nowhere-1:${VOLUME}`, `ebs:eu-west-1:${VOLUME}`],
      }),
    );

    expect(result.value.sources.filter((s) => !s.ok)).toEqual([
      expect.objectContaining({
        source: `ebs:${DISABLED}:${VOLUME}`,
        error: expect.objectContaining({
          code: 'opt_in_required',
          message: expect.stringContaining(`Region ${DISABLED} is not enabled for this account`),
        }),
      }),
      expect.objectContaining({
        source: `ebs:eu-nowhere-1:${VOLUME}`,
        error: expect.objectContaining({ code: 'invalid_args' }),
      }),
    ]);
    expect(ec2.commandCalls(DescribeRegionsCommand)).toHaveLength(1);
  });

  it('snapshot_stats and diff_snapshots of a snapshot id in that region say it is not enabled (not auth_failed)', async () => {
    const [a, b] = [`ebs:${DISABLED}:${A.SnapshotId}`, `ebs:${DISABLED}:${B.SnapshotId}`];

    const stats = expectFailure(await runAwsTool(createSnapshotStatsTool(defaultSnapshotClients), { id: a }));
    const diff = expectFailure(await runAwsTool(createDiffSnapshotsTool(defaultSnapshotClients), { a, b }));

    for (const failure of [stats, diff]) {
      expect(failure.error).toMatchObject({
        code: 'opt_in_required',
        retryable: false,
        service: 'ec2',
        message: expect.stringContaining(`Region ${DISABLED} is not enabled for this account`),
        details: expect.objectContaining({
          awsError: 'AuthFailure',
          region: DISABLED,
          optInStatus: 'not-opted-in',
        }),
      });
    }
  });

  it('snapshot_stats keeps auth_failed when DescribeRegions refuses the credentials too', async () => {
    ec2
      .on(DescribeRegionsCommand)
      .rejects(ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials'));

    const failure = expectFailure(
      await runAwsTool(createSnapshotStatsTool(defaultSnapshotClients), {
        id: `ebs:${DISABLED}:${A.SnapshotId}`,
      }),
    );

    expect(failure.error).toMatchObject({ code: 'auth_failed', details: { awsError: 'AuthFailure' } });
  });
});
