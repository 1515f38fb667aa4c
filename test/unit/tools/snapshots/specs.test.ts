import * as path from 'node:path';
import { parseToolArgs } from '../../../../functions/runtime/args';
import { isStrictObject, publicSpec, type ToolSpec, toJsonSchema } from '../../../../functions/runtime/spec';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { diffSnapshotsSpec } from '../../../../functions/tools/snapshots/diff-snapshots.meta';
import { inspectFindingSpec } from '../../../../functions/tools/snapshots/inspect-finding.meta';
import { listSnapshotsSpec } from '../../../../functions/tools/snapshots/list-snapshots.meta';
import { scanSnapshotsSpec } from '../../../../functions/tools/snapshots/scan-snapshots.meta';
import { snapshotStatsSpec } from '../../../../functions/tools/snapshots/snapshot-stats.meta';
import { reachableModules } from '../../../helpers/import-graph';

const SPECS: ToolSpec[] = [
  listSnapshotsSpec,
  snapshotStatsSpec,
  diffSnapshotsSpec,
  inspectFindingSpec,
  scanSnapshotsSpec,
];
const INVENTORY_OBJECTS = [
  'arn:aws:s3:::*/????-??-??T??-??Z/manifest.json',
  'arn:aws:s3:::*/data/????????-????-????-????-????????????.csv.gz',
  'arn:aws:s3:::*/data/????????-????-????-????-????????????.parquet',
];

describe('snapshot tool specs', () => {
  it('are the named tools, strict, tagged no_content; all but inspect_finding read the account (aws_default)', () => {
    const registered = toolCatalog.list().filter((spec) => spec.tags.includes('snapshots'));
    expect(registered.map((s) => s.name).sort()).toEqual(SPECS.map((s) => s.name).sort());
    for (const spec of SPECS) {
      expect(isStrictObject(spec.inputSchema)).toBe(true);
      expect(toJsonSchema(spec.inputSchema).additionalProperties).toBe(false);
      const readsAccount = spec.name !== 'inspect_finding';
      expect(spec.requiresSecrets).toEqual(readsAccount ? ['aws_default'] : []);
      expect(spec.tags.includes('aws')).toBe(readsAccount);
      expect(spec.tags).toEqual(expect.arrayContaining(['snapshots', 'no_content']));
      expect(spec.description.length).toBeGreaterThan(200);
    }
    expect(SPECS.filter((s) => s.sideEffects === 'write').map((s) => s.name)).toEqual(['scan_snapshots']);
  });

  it('grant exactly the actions each tool calls', () => {
    const actions = Object.fromEntries(
      SPECS.map((s) => [
        s.name,
        publicSpec(s)
          .iam.flatMap((g) => g.actions)
          .sort(),
      ]),
    );

    expect(actions).toEqual({
      list_snapshots: [
        'ec2:DescribeRegions',
        'ec2:DescribeSnapshots',
        's3:GetInventoryConfiguration',
        's3:GetObject',
        's3:ListAllMyBuckets',
        's3:ListBucket',
      ],
      snapshot_stats: [
        // The Athena route (iam.ts ATHENA_ROUTE_GRANTS): queries in etp-* workgroups, etp_* tables, symlink.txt, ORC data files.
        'athena:GetQueryExecution',
        'athena:GetQueryResults',
        'athena:StartQueryExecution',
        'ebs:ListChangedBlocks',
        'ebs:ListSnapshotBlocks',
        'ec2:DescribeRegions',
        'ec2:DescribeSnapshots',
        'glue:CreateTable',
        'glue:GetDatabase',
        'glue:GetTable',
        's3:GetBucketLocation',
        's3:GetInventoryConfiguration',
        's3:GetObject',
        's3:GetObject',
        's3:GetObject',
        's3:ListBucket',
      ],
      diff_snapshots: [
        // The Athena route (iam.ts ATHENA_ROUTE_GRANTS): queries in etp-* workgroups, etp_* tables, symlink.txt, ORC data files.
        'athena:GetQueryExecution',
        'athena:GetQueryResults',
        'athena:StartQueryExecution',
        'ebs:ListChangedBlocks',
        'ebs:ListSnapshotBlocks',
        'ec2:DescribeRegions',
        'ec2:DescribeSnapshots',
        'glue:CreateTable',
        'glue:GetDatabase',
        'glue:GetTable',
        's3:GetBucketLocation',
        's3:GetInventoryConfiguration',
        's3:GetObject',
        's3:GetObject',
        's3:GetObject',
        's3:ListBucket',
      ],
      inspect_finding: [],
      scan_snapshots: [
        // The Athena route too (iam.ts ATHENA_ROUTE_GRANTS).
        'athena:GetQueryExecution',
        'athena:GetQueryResults',
        'athena:StartQueryExecution',
        'ebs:ListChangedBlocks',
        'ebs:ListSnapshotBlocks',
        'ec2:DescribeRegions',
        'ec2:DescribeSnapshots',
        'glue:CreateTable',
        'glue:GetDatabase',
        'glue:GetTable',
        's3:GetBucketLocation',
        's3:GetBucketPolicyStatus',
        's3:GetInventoryConfiguration',
        's3:GetObject',
        's3:GetObject',
        's3:GetObject',
        's3:ListAllMyBuckets',
        's3:ListBucket',
      ],
    });
  });

  it('allow s3:GetObject only on inventory manifests and UUID-named data files', () => {
    const resources = publicSpec(snapshotStatsSpec).iam.find((g) =>
      g.actions.includes('s3:GetObject'),
    )?.resources;

    expect(resources).toEqual(INVENTORY_OBJECTS);
  });

  it('carry the explicit Deny: block content everywhere, object content outside inventory reports', () => {
    for (const spec of SPECS) {
      expect(spec.iamDeny).toEqual([
        { sid: 'DenySnapshotBlockContent', actions: ['ebs:GetSnapshotBlock'], resources: ['*'] },
        {
          sid: 'DenyObjectContentOutsideInventories',
          actions: ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectTorrent'],
          // The Athena route's symlink.txt files (lists of data files) and ORC data files (Athena reads them).
          notResources: [
            ...INVENTORY_OBJECTS,
            'arn:aws:s3:::*/hive/dt=????-??-??-??-??/symlink.txt',
            'arn:aws:s3:::*/data/????????-????-????-????-????????????.orc',
          ],
        },
      ]);
    }
  });

  it('reach the run workspace only where findings and Athena answers are kept: scan writes, inspect reads', () => {
    expect(Object.fromEntries(SPECS.map((s) => [s.name, s.workspaceAccess ?? 'none']))).toEqual({
      list_snapshots: 'none',
      snapshot_stats: { access: 'read_write', paths: ['snapshots/athena/snapshot_stats-*.json'] },
      diff_snapshots: { access: 'read_write', paths: ['snapshots/athena/diff_snapshots-*.json'] },
      inspect_finding: { access: 'read', paths: ['snapshots/findings.json'] },
      scan_snapshots: { access: 'read_write', paths: ['snapshots/findings.json'] },
    });
  });

  it('load no AWS SDK client and no Parquet reader (the dispatcher bundles every spec)', () => {
    const root = path.resolve(__dirname, '../../../../functions/tools/snapshots');
    const modules = reachableModules(
      SPECS.map((spec) => path.join(root, `${spec.name.replace(/_/g, '-')}.meta.ts`)),
    );

    const heavy = modules.flatMap((m) =>
      [...m.imports.keys()]
        .filter(
          (specifier) =>
            specifier.startsWith('@aws-sdk/') || specifier === 'hyparquet' || specifier === 'csv-parse/sync',
        )
        .map((specifier) => `${path.basename(m.file)} → ${specifier}`),
    );

    expect(heavy).toEqual([]);
  });

  it.each([
    ['list_snapshots', { limit: 0 }, 'limit', listSnapshotsSpec],
    ['list_snapshots', { since: 'yesterday' }, 'since', listSnapshotsSpec],
    ['list_snapshots', { source: 'vol-0123456789abcdef0' }, 'source', listSnapshotsSpec],
    ['snapshot_stats', { id: 'snap-0123456789abcdef0' }, 'id', snapshotStatsSpec],
    // Parsed whole while validating: the dispatcher refuses it before the tool's function is invoked.
    ['snapshot_stats', { id: 'ebs:eu-west-1:snap-123' }, 'id', snapshotStatsSpec],
    ['snapshot_stats', { id: 's3_inventory:photos/daily/yesterday' }, 'id', snapshotStatsSpec],
    // Times that do not exist, and a since that can only select nothing.
    ['snapshot_stats', { id: 's3_inventory:photos/daily/2026-13-45T99-99Z' }, 'id', snapshotStatsSpec],
    ['snapshot_stats', { id: 's3_inventory:photos/daily/2026-02-30T01-00Z' }, 'id', snapshotStatsSpec],
    ['list_snapshots', { since: '2999-01-01' }, 'since', listSnapshotsSpec],
    ['scan_snapshots', { since: '2999-01-01T00:00:00Z' }, 'since', scanSnapshotsSpec],
    ['scan_snapshots', { sources: ['ebs:eu-west-1:vol-1'] }, 'sources[0]', scanSnapshotsSpec],
    ['diff_snapshots', { a: 'ebs:eu-west-1:snap-0123456789abcdef0' }, 'b', diffSnapshotsSpec],
    ['inspect_finding', { id: 'change_spike' }, 'id', inspectFindingSpec],
    [
      'scan_snapshots',
      { thresholds: { changeSpikeFactor: 0.5 } },
      'thresholds.changeSpikeFactor',
      scanSnapshotsSpec,
    ],
    ['scan_snapshots', { thresholds: { typo: 1 } }, 'thresholds', scanSnapshotsSpec],
    // Settings that contradict each other or would be ignored.
    [
      'scan_snapshots',
      { thresholds: { minBaselineSnapshots: 9 } },
      'thresholds.minBaselineSnapshots',
      scanSnapshotsSpec,
    ],
    [
      'scan_snapshots',
      { thresholds: { baselineSnapshots: 2, minBaselineSnapshots: 3 } },
      'thresholds.minBaselineSnapshots',
      scanSnapshotsSpec,
    ],
    [
      'scan_snapshots',
      { sources: ['s3_inventory:photos', 's3_inventory:photos'] },
      'sources',
      scanSnapshotsSpec,
    ],
    [
      'scan_snapshots',
      { sources: ['s3_inventory:photos'], regions: ['eu-west-1'] },
      'regions',
      scanSnapshotsSpec,
    ],
  ])('%s refuses %j, naming %s', (_name, args, path, spec) => {
    expect(() => parseToolArgs(spec as ToolSpec, args)).toThrow(
      expect.objectContaining({
        code: 'invalid_args',
        details: expect.objectContaining({
          violations: expect.arrayContaining([expect.objectContaining({ path })]),
        }),
      }),
    );
  });

  it('accepts a real report time and a since of today', () => {
    const today = new Date().toISOString().slice(0, 10);

    expect(
      parseToolArgs(snapshotStatsSpec as ToolSpec, { id: 's3_inventory:photos/daily/2024-02-29T01-00Z' }),
    ).toEqual({
      id: 's3_inventory:photos/daily/2024-02-29T01-00Z',
    });
    expect(parseToolArgs(listSnapshotsSpec as ToolSpec, { since: today })).toEqual({
      limit: 50,
      since: today,
    });
  });

  it('defaults list_snapshots to 50 snapshots', () => {
    expect(parseToolArgs(listSnapshotsSpec as ToolSpec, {})).toEqual({ limit: 50 });
  });
});
