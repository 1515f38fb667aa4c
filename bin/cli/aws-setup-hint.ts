/** What the AWS SDK's own setup errors leave unsaid: which variable to set. */

/**
 * What to set when the AWS SDK could not even start a request: it names no
 * variable itself ("Region is missing", "Could not load credentials from any
 * providers"), and the commands that reach deployed resources (`secrets … --table`,
 * `scenario start`, `run …`) need both. Empty when `err` is no such error.
 *
 * @example awsSetupHint(new Error('Region is missing')) // 'set AWS_REGION, or a region in your AWS profile: AWS_PROFILE'
 */
export function awsSetupHint(err: unknown): string {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : '';
  if (/^Region is missing/.test(message)) {
    return 'set AWS_REGION, or a region in your AWS profile: AWS_PROFILE';
  }
  if (name === 'CredentialsProviderError' || /Could not load credentials/.test(message)) {
    return 'set AWS credentials with AWS_PROFILE, aws sso login, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  }
  return '';
}
