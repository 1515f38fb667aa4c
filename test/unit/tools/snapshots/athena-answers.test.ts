import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { answerWriterFromEnvironment } from '../../../../functions/tools/snapshots/athena/answers';
import { athenaAnswerFile, athenaAnswerPaths } from '../../../../functions/tools/snapshots/athena/settings';

/**
 * Where the Athena route's answer goes (functions/tools/snapshots/athena/answers.ts):
 * the run workspace with the call's vended run-data session, at a key its spec's
 * `workspaceAccess` path covers; a local directory outside Lambda.
 */
const RUN = { tenant: 'acme', scenario: 's3_review', runId: 'r1' };
const FILE = athenaAnswerFile('diff_snapshots', ['2026-03-09T01-00Z', '2026-03-10T01-00Z']);

describe('the Athena answer writer', () => {
  const s3 = mockClient(S3Client);
  let dir: string | undefined;

  afterEach(() => {
    s3.reset();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("puts the answer in the call's run workspace with the vended run-data session", async () => {
    // Prepare: the session the dispatcher vended for this call (ctx.runData)
    const credentials = jest.fn(async () => ({ accessKeyId: 'ASIARUNDATA', secretAccessKey: 'fake-secret' }));
    const sent: { key?: string; accessKeyId?: string }[] = [];
    s3.on(PutObjectCommand).callsFake(async (input, getClient) => {
      const client = getClient() as S3Client;
      sent.push({ key: input.Key, accessKeyId: (await client.config.credentials()).accessKeyId });
      return {};
    });
    const writer = answerWriterFromEnvironment(
      { RUN_BUCKET: 'etp-workspace', AWS_REGION: 'eu-west-1' },
      credentials,
    );

    // Act
    const where = await writer(RUN, FILE, { tool: 'diff_snapshots' });

    // Assess
    const key =
      'runs/acme/s3_review/r1/snapshots/athena/diff_snapshots-2026-03-09T01-00Z-2026-03-10T01-00Z.json';
    expect(where).toBe(`s3://etp-workspace/${key}`);
    expect(sent).toEqual([{ key, accessKeyId: 'ASIARUNDATA' }]);
    expect(credentials).toHaveBeenCalled();
  });

  it("names a file its tool's workspaceAccess path covers, and no other tool's", () => {
    const [pattern] = athenaAnswerPaths('diff_snapshots');
    const glob = (p: string) => new RegExp(`^${p.replace(/[.]/g, '\\.').replace('*', '.*')}$`);
    expect(pattern).toBe('snapshots/athena/diff_snapshots-*.json');
    expect(glob(pattern ?? '').test(`snapshots/athena/${FILE}`)).toBe(true);
    expect(glob(athenaAnswerPaths('snapshot_stats')[0] ?? '').test(`snapshots/athena/${FILE}`)).toBe(false);
  });

  it('writes under the local directory outside Lambda, and refuses a Lambda function without RUN_BUCKET', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'etp-athena-answers-'));
    const where = await answerWriterFromEnvironment({ ETP_LOCAL_DIR: dir })(RUN, FILE, {
      tool: 'diff_snapshots',
    });
    expect(where).toBe(path.join(dir, 'runs/acme/s3_review/r1/snapshots/athena', FILE));
    expect(JSON.parse(readFileSync(where, 'utf8'))).toEqual({ tool: 'diff_snapshots' });
    expect(() => answerWriterFromEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'etp-diff-snapshots' })).toThrow(
      'this function has no RUN_BUCKET',
    );
  });
});
