/**
 * The runs of a tenant in the platform's bucket: the `runs/<tenant>/` and
 * `runs/<tenant>/<scenario>/` "folders", listed with ListObjectsV2's delimiter
 * (common prefixes), never the objects themselves.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { awsRequestHandler } from '../runtime/aws/http-timeouts';
import { isIdentifier, RUN_ID, SNAKE_CASE_NAME } from '../runtime/ids';
import type { RunIndex } from './backend';

/** Most prefixes read per listing: 10 pages of ListObjectsV2's 1,000 keys (Amazon S3 API reference). */
const MAX_PAGES = 10;

/** A {@link RunIndex} over `bucket`. */
export function s3RunIndex(
  bucket: string,
  client = new S3Client({ requestHandler: awsRequestHandler() }),
): RunIndex {
  const children = async (prefix: string): Promise<string[]> => {
    const names: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const common of listed.CommonPrefixes ?? []) {
        const name = (common.Prefix ?? '').slice(prefix.length).replace(/\/$/, '');
        if (name) names.push(name);
      }
      token = listed.NextContinuationToken;
      if (!token) break;
    }
    return names;
  };
  return {
    async scenarios(tenant) {
      return (await children(`runs/${tenant}/`)).filter((name) => isIdentifier(SNAKE_CASE_NAME, name));
    },
    async runIds(tenant, scenario) {
      return (await children(`runs/${tenant}/${scenario}/`)).filter((name) => isIdentifier(RUN_ID, name));
    },
  };
}
