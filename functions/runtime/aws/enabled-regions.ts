import { DescribeRegionsCommand, EC2Client, type Region } from '@aws-sdk/client-ec2';
import { PlatformError } from '../errors';
import { normalizeError } from '../normalize-error';
import type { ToolErrorInfo } from '../result';
import { awsClientConfig } from './client-config';
import type { AwsAccess } from './credentials';

/** What a tool's `regions` argument accepts: region names, or `"all"` for the account's enabled regions. */
export type RegionSelection = 'all' | readonly string[];

/**
 * DescribeRegions `OptInStatus` of a region the account has not enabled (EC2 API
 * reference, "Region": `opt-in-not-required`, `opted-in`, `not-opted-in`).
 */
const NOT_OPTED_IN = 'not-opted-in';

/**
 * The regions to fan out over. `"all"` asks EC2 DescribeRegions for the regions
 * enabled in the account (opt-in regions only once opted in; AWS docs, "Specify
 * which AWS Regions your account can use"); an explicit list is used as given,
 * de-duplicated, in order. Omitted means the access's own region.
 *
 * @throws the SDK's error when DescribeRegions fails (normalized by the harness).
 */
export async function resolveRegions(
  selection: RegionSelection | undefined,
  access: AwsAccess,
): Promise<string[]> {
  if (selection === undefined) return [access.region];
  if (selection !== 'all') return [...new Set(selection)];
  const ec2 = new EC2Client(awsClientConfig(access));
  const { Regions } = await ec2.send(new DescribeRegionsCommand({ AllRegions: false }));
  return (Regions ?? [])
    .filter((r) => r.OptInStatus !== NOT_OPTED_IN)
    .map((r) => r.RegionName)
    .filter((name): name is string => typeof name === 'string')
    .sort();
}

/**
 * Every region of the access's partition (DescribeRegions `AllRegions: true`),
 * or `undefined` when DescribeRegions fails or lists none: the explainer then
 * leaves errors as they were rather than guess.
 */
async function describeAllRegions(access: AwsAccess): Promise<Region[] | undefined> {
  try {
    const answer = await new EC2Client(awsClientConfig(access)).send(
      new DescribeRegionsCommand({ AllRegions: true }),
    );
    return answer?.Regions?.length ? answer.Regions : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites one region's normalized error, or returns it as it was. */
export type RegionErrorExplainer = (region: string, error: ToolErrorInfo) => Promise<ToolErrorInfo>;

/**
 * The codes a region the account cannot call answers with, which read as
 * something else: a region not enabled (an opt-in region the account has not
 * opted in to) answers `AuthFailure` (EC2), `UnrecognizedClientException` (JSON
 * services) or `InvalidClientTokenId` (Query services), all `auth_failed`, as if
 * the credentials were bad; a name that is no region has no endpoint, so its
 * calls fail with `ENOTFOUND`, a retryable `network_error`.
 */
const EXPLAINED_CODES: ReadonlySet<string> = new Set(['auth_failed', 'network_error']);

/**
 * Explains the failures of regions the account cannot call, asking EC2
 * DescribeRegions (`AllRegions: true`, in the access's own region) once per
 * explainer, and only when a region failed with an {@link EXPLAINED_CODES} code:
 *
 * - a region DescribeRegions lists as `not-opted-in` → `opt_in_required`
 *   (not retryable): the region is not enabled for the account;
 * - a name DescribeRegions does not list at all → `invalid_args`: no such region in the partition,
 *   with the regions the account can call;
 * - anything else (an enabled region, DescribeRegions failing or answering no
 *   region) → the error as it was: bad credentials stay `auth_failed`.
 *
 * The AWS error name, request id and status stay in `details` (`awsError`…),
 * with `optInStatus` where DescribeRegions gave one. Needs `ec2:DescribeRegions`,
 * which every regional tool's spec holds (for `"all"`).
 *
 * @example
 * const explain = regionErrorExplainer(access);
 * await explain('ap-east-1', { code: 'auth_failed', message: 'AuthFailure: …', retryable: false });
 * // { code: 'opt_in_required', message: 'Region ap-east-1 is not enabled for this account …', … }
 */
export function regionErrorExplainer(access: AwsAccess): RegionErrorExplainer {
  let listing: Promise<Region[] | undefined> | undefined;
  return async (region, error) => {
    if (!EXPLAINED_CODES.has(error.code)) return error;
    listing ??= describeAllRegions(access);
    const regions = await listing;
    if (!regions) return error;
    const listed = regions.find((r) => r.RegionName === region);
    const details = { ...error.details, region };
    if (!listed) {
      const callable = regions
        .filter((r) => r.OptInStatus !== NOT_OPTED_IN)
        .map((r) => r.RegionName)
        .filter((name): name is string => typeof name === 'string')
        .sort();
      return {
        ...error,
        code: 'invalid_args',
        retryable: false,
        message:
          `"${region}" is not a region of this account's partition (EC2 DescribeRegions does not list it); ` +
          `regions this account can call: ${callable.join(', ')}, or "all" (${error.message})`,
        details,
      };
    }
    if (listed.OptInStatus !== NOT_OPTED_IN) return error;
    return {
      ...error,
      code: 'opt_in_required',
      retryable: false,
      message:
        `Region ${region} is not enabled for this account (an opt-in region, OptInStatus ${NOT_OPTED_IN}): ` +
        `enable it (Account settings, "AWS Regions") or ask for an enabled region instead; "all" reads only enabled regions (${error.message})`,
      details: { ...details, optInStatus: NOT_OPTED_IN },
    };
  };
}

/**
 * Runs `call`, the reads of one resource in `region` (a snapshot named
 * `ebs:<region>:…`), and explains its failure as {@link regionErrorExplainer}
 * explains a region's in a fan-out: a region the account has not enabled is
 * `opt_in_required`, a name that is no region `invalid_args`. Any other failure
 * is rethrown as it was.
 *
 * @param service - the service of `call`'s first request (`ec2`), which is the one
 *   a region the account cannot call refuses.
 * @throws PlatformError with the explained error, or what `call` threw.
 * @example
 * await inExplainedRegion(access, ref.region, { tool: ctx.tool, service: 'ec2' }, () => ebsStats(…));
 */
export async function inExplainedRegion<T>(
  access: AwsAccess,
  region: string,
  options: { readonly tool: string; readonly service: string },
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const error = normalizeError(options.tool, err, options.service);
    const explained = await regionErrorExplainer(access)(region, error);
    if (explained === error) throw err;
    throw new PlatformError(explained.code, explained.message, {
      retryable: explained.retryable,
      service: explained.service ?? options.service,
      ...(explained.details ? { details: explained.details } : {}),
      cause: err,
    });
  }
}
