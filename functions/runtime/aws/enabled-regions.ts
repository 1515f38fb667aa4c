import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { awsClientConfig } from './client-config';
import type { AwsAccess } from './credentials';

/** What a tool's `regions` argument accepts: region names, or `"all"` for the account's enabled regions. */
export type RegionSelection = 'all' | readonly string[];

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
    .filter((r) => r.OptInStatus !== 'not-opted-in')
    .map((r) => r.RegionName)
    .filter((name): name is string => typeof name === 'string')
    .sort();
}
