import { EBSClient } from '@aws-sdk/client-ebs';
import { DescribeSnapshotsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { UnknownToolError } from '../../../../functions/runtime/errors';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { SnapshotToolRunner, snapshotTools } from '../../../../functions/tools/snapshots/runner';
import { awsToolServices } from '../../../helpers/aws-tool';
import { snapshotOf } from '../../../helpers/ebs-fixtures';

const ec2 = mockClient(EC2Client);
mockClient(EBSClient);

beforeEach(() => {
  ec2.reset();
});

function runner() {
  return new SnapshotToolRunner({
    services: awsToolServices(),
    invocation: { tenant: 'default', runId: 'r-1' },
  });
}

describe('SnapshotToolRunner', () => {
  it('lists the snapshot tools, sorted, as public specs', () => {
    expect(
      runner()
        .all()
        .map((t) => t.name),
    ).toEqual(['diff_snapshots', 'inspect_finding', 'list_snapshots', 'scan_snapshots', 'snapshot_stats']);
  });

  it('runs the very specs the catalog registers as snapshot tools', () => {
    const registered = toolCatalog.list().filter((spec) => spec.tags.includes('snapshots'));

    expect(
      snapshotTools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(registered.map((spec) => spec.name).sort());
    for (const tool of snapshotTools()) expect(tool.inputSchema).toBe(toolCatalog.get(tool.name).inputSchema);
  });

  it('hands out copies: changing what all() or schema() returned changes nothing', () => {
    const r = runner();
    const all = r.all();
    all.pop();
    (all[0] as { name: string }).name = 'renamed';
    const grants = (all[0] as unknown as { iam: { actions: string[] }[] }).iam;
    grants[0]?.actions.push('s3:*');
    const schema = r.schema('snapshot_stats');
    (schema.properties as Record<string, unknown>).injected = { type: 'string' };

    expect(r.all()).toHaveLength(snapshotTools().length);
    expect(r.all()[0]?.name).toBe('diff_snapshots');
    expect(r.all()[0]?.iam[0]?.actions).not.toContain('s3:*');
    expect(Object.keys(r.schema('snapshot_stats').properties as object)).toEqual(['id']);
  });

  it("gives each tool's JSON Schema", () => {
    expect(runner().schema('diff_snapshots')).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['a', 'b'],
    });
  });

  it('refuses an unknown name, listing the known ones', async () => {
    const r = runner();

    expect(() => r.schema('read_file_content')).toThrow(UnknownToolError);
    expect(() => r.schema('read_file_content')).toThrow(
      'Unknown tool "read_file_content". Registered tools: diff_snapshots, inspect_finding, list_snapshots, scan_snapshots, snapshot_stats',
    );
    await expect(r.run('constructor', {})).rejects.toThrow('Registered tools: diff_snapshots');
  });

  it('runs a tool and returns its ToolResult as JSON, errors included', async () => {
    ec2.on(DescribeSnapshotsCommand).resolves({
      Snapshots: [snapshotOf('snap-0000000000000000a', 'vol-049df61146c4d7901', '2026-03-01T00:00:00.000Z')],
    });
    const r = runner();

    const listed = JSON.parse(
      await r.run('list_snapshots', { source: 'ebs:eu-west-1:vol-049df61146c4d7901' }),
    );
    const invalid = JSON.parse(await r.run('snapshot_stats', '{"id": "snap-1"}'));

    expect(listed).toMatchObject({
      ok: true,
      tool: 'list_snapshots',
      callId: 'runner/0',
      value: { matched: 1, snapshots: [{ id: 'ebs:eu-west-1:snap-0000000000000000a' }] },
    });
    expect(invalid).toMatchObject({ ok: false, callId: 'runner/1', error: { code: 'invalid_args' } });
  });

  it('refuses an invocation the platform would not accept', () => {
    expect(
      () =>
        new SnapshotToolRunner({
          services: awsToolServices(),
          invocation: { tenant: 'acme', runId: 'run id with spaces' },
        }),
    ).toThrow('run id');
  });
});
