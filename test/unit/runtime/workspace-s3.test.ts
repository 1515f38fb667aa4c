import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { createDispatcher } from '../../../functions/dispatcher/dispatch';
import { fileTool, ToolCatalog } from '../../../functions/runtime/catalog';
import { deadlineIn } from '../../../functions/runtime/deadline';
import { InvalidArgsError } from '../../../functions/runtime/errors';
import { logger } from '../../../functions/runtime/logger';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import type { ToolResult } from '../../../functions/runtime/result';
import { WorkspaceConflictError } from '../../../functions/runtime/workspace-content';
import { S3Workspace, s3WorkspaceProvider } from '../../../functions/runtime/workspace-s3';
import { editFileTool } from '../../../functions/tools/files/edit-file';
import { nativeEnvelope } from '../../helpers/events';

const s3Mock = mockClient(S3Client);

const SCOPE = { tenant: 'acme', scenario: 'aws_pulse', runId: 'run-1' };
const ROOT = 'runs/acme/aws_pulse/run-1/';

function s3Error(name: string, status: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: 'client',
    $metadata: { httpStatusCode: status },
    message: name,
  });
}

/** A GetObject body: the SDK's stream mixin, of which the workspace uses `transformToByteArray` only. */
function body(text: string): GetObjectCommandOutput['Body'] {
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  return { transformToByteArray: async () => bytes } as unknown as GetObjectCommandOutput['Body'];
}

const open = () => new S3Workspace({ bucket: 'etp-runs', scope: SCOPE });

beforeEach(() => {
  s3Mock.reset();
});

describe('S3Workspace', () => {
  it('sends nothing for a path it refuses', async () => {
    // Act
    const attempts = [open().read('../x'), open().write('/x', 'x'), open().list('..')];

    // Assess
    for (const attempt of attempts) await expect(attempt).rejects.toThrow(InvalidArgsError);
    expect(s3Mock.calls()).toHaveLength(0);
  });

  it('writes under the run prefix with its content type and metadata, conditionally when asked', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({ ETag: '"abc"' });

    // Act
    const file = await open().write('reports/x.json', '{"a":1}', 'application/json', {
      ifMatch: '"v1"',
      metadata: { 'etp-call': 'report/0' },
    });

    // Assess
    expect(s3Mock.commandCalls(PutObjectCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'etp-runs',
      Key: `${ROOT}reports/x.json`,
      ContentType: 'application/json',
      IfMatch: '"v1"',
      Metadata: { 'etp-call': 'report/0' },
    });
    expect(file).toMatchObject({
      path: 'reports/x.json',
      bytes: 7,
      sha256: '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    });
  });

  it.each([
    ['PreconditionFailed', 412],
    ['ConditionalRequestConflict', 409],
  ])('turns %s into a retryable conflict that writes nothing', async (name, status) => {
    // Prepare
    s3Mock.on(PutObjectCommand).rejects(s3Error(name, status));

    // Act
    const write = open().write('x.md', 'x', undefined, { ifMatch: '"v1"' });

    // Assess
    await expect(write).rejects.toThrow(WorkspaceConflictError);
    await expect(write).rejects.toMatchObject({ code: 'upstream_error', retryable: true, service: 's3' });
  });

  it('reads a range a few bytes longer, to end on a whole character, and takes the size from Content-Range', async () => {
    // Prepare
    s3Mock.on(GetObjectCommand).resolves({
      Body: body('abcdefgh'),
      ContentRange: 'bytes 10-17/5000',
      ETag: '"e1"',
      Metadata: { 'etp-edits': 'analyze/1=0123456789abcdef:1' },
    });

    // Act
    const slice = await open().read('notes.md', { offset: 10, length: 5 });

    // Assess
    expect(s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'etp-runs',
      Key: `${ROOT}notes.md`,
      Range: 'bytes=10-17',
    });
    expect(slice).toEqual({
      path: 'notes.md',
      content: 'abcde',
      offset: 10,
      bytes: 5,
      totalBytes: 5000,
      etag: '"e1"',
      metadata: { 'etp-edits': 'analyze/1=0123456789abcdef:1' },
    });
  });

  it('tells a missing file from a refused one when S3 answers 403 (ListBucket is prefix-scoped)', async () => {
    // Prepare: GetObject of a missing key is 403 without an unconditional ListBucket.
    s3Mock.on(GetObjectCommand).rejects(s3Error('AccessDenied', 403));
    s3Mock
      .on(ListObjectsV2Command, { Prefix: `${ROOT}missing.md` })
      .resolves({ Contents: [{ Key: `${ROOT}missing.md.bak` }] })
      .on(ListObjectsV2Command, { Prefix: `${ROOT}present.md` })
      .resolves({ Contents: [{ Key: `${ROOT}present.md` }] });

    // Act
    const missing = open().read('missing.md');
    const refused = open().read('present.md');

    // Assess
    await expect(missing).rejects.toMatchObject({ code: 'not_found' });
    const error = await refused.catch((err: unknown) => err);
    expect(normalizeError('read_file', error, 's3')).toMatchObject({ code: 'access_denied', service: 's3' });
  });

  it('reads past the end as an empty slice at the end, from HeadObject', async () => {
    // Prepare
    s3Mock.on(GetObjectCommand).rejects(s3Error('InvalidRange', 416));
    s3Mock.on(HeadObjectCommand).resolves({ ContentLength: 12, ETag: '"e2"' });

    // Act
    const slice = await open().read('notes.md', { offset: 40, length: 10 });

    // Assess
    expect(slice).toMatchObject({ content: '', offset: 12, bytes: 0, totalBytes: 12, etag: '"e2"' });
  });

  it('lists page after page until the limit, paths relative to the run', async () => {
    // Prepare
    s3Mock
      .on(ListObjectsV2Command)
      .resolvesOnce({
        IsTruncated: true,
        NextContinuationToken: 'page-2',
        Contents: [{ Key: `${ROOT}a.md`, Size: 1, LastModified: new Date('2025-01-02T03:04:05Z') }],
      })
      .resolvesOnce({
        IsTruncated: true,
        NextContinuationToken: 'page-3',
        Contents: [{ Key: `${ROOT}b.md`, Size: 2 }],
      })
      .resolves({ Contents: [{ Key: `${ROOT}c.md`, Size: 3 }] });

    // Act
    const files = await open().list('', { limit: 2 });

    // Assess
    expect(files).toEqual([
      { path: 'a.md', bytes: 1, lastModified: '2025-01-02T03:04:05.000Z' },
      { path: 'b.md', bytes: 2 },
    ]);
    expect(s3Mock.commandCalls(ListObjectsV2Command).map((c) => c.args[0].input)).toEqual([
      { Bucket: 'etp-runs', Prefix: ROOT, MaxKeys: 2 },
      { Bucket: 'etp-runs', Prefix: ROOT, MaxKeys: 1, ContinuationToken: 'page-2' },
    ]);
  });
});

describe('edit_file on S3 when another call changed the file in between', () => {
  it('starts over on the new version and applies its edit once', async () => {
    // Prepare: the first conditional write loses to another writer.
    s3Mock
      .on(GetObjectCommand)
      .resolvesOnce({ Body: body('status: draft'), ContentRange: 'bytes 0-12/13', ETag: '"v1"' })
      .resolves({ Body: body('owner: b\nstatus: draft'), ContentRange: 'bytes 0-21/22', ETag: '"v2"' });
    s3Mock.on(PutObjectCommand).rejectsOnce(s3Error('PreconditionFailed', 412)).resolves({ ETag: '"v3"' });
    const dispatch = createDispatcher({
      catalog: new ToolCatalog([fileTool(editFileTool as never)]),
      whitelists: { aws_pulse: { report: [] } },
      invoker: { invoke: async () => Promise.reject(new Error('no function tools here')) },
      services: { logger },
      logger,
      maxResultBytes: 64 * 1024,
      requireLevel: true,
      workspaces: s3WorkspaceProvider('etp-runs'),
    });

    // Act
    const result: ToolResult = await dispatch(
      nativeEnvelope({
        ...SCOPE,
        level: 'report',
        tool: 'edit_file',
        callId: 'report/4',
        args: { path: 'reports/pulse.md', old_string: 'draft', new_string: 'final' },
      }),
      deadlineIn(30_000),
    );

    // Assess
    expect(result).toMatchObject({ ok: true, value: { replacements: 1, alreadyApplied: false } });
    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(puts.map((put) => [put.IfMatch, Buffer.from(put.Body as Uint8Array).toString('utf8')])).toEqual([
      ['"v1"', 'status: final'],
      ['"v2"', 'owner: b\nstatus: final'],
    ]);
    expect(puts[1]?.Metadata?.['etp-edits']).toMatch(/^report\/4=[0-9a-f]{16}:1$/);
  });
});
