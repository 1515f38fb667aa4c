/**
 * Labels errors with the AWS service they came from. A snapshot tool calls
 * EC2, the EBS direct APIs and S3; its spec names one `service`, so errors of
 * the others are tagged here (`ServiceCallError`, which `normalizeError`
 * reports with that service) instead of being reported under the wrong one.
 */
import { PlatformError, ServiceCallError } from '../../runtime/errors';

/**
 * Runs `call`, reporting what it throws as `service`'s error. Platform errors
 * (ours) and errors already tagged (STS, under a credential provider) keep
 * their own labels.
 *
 * @example const snapshot = await inService('ec2', () => describeSnapshot(ec2, region, id, deadline));
 */
export async function inService<T>(service: 'ec2' | 'ebs' | 's3', call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof PlatformError || err instanceof ServiceCallError) throw err;
    throw new ServiceCallError(service, err);
  }
}
