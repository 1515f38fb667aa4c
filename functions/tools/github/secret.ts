/** The `github_default` secret's accepted payloads (a leaf module: the connector and the App auth both read it). */
import * as z from 'zod/mini';

export const tokenSecret = z.object({
  token: z
    .string()
    .check(z.regex(/^\S{20,255}$/, 'a token of 20-255 characters without white space: ghp_…, github_pat_…')),
});

export const appSecret = z.object({
  app_id: z.union([z.int().check(z.positive()), z.string().check(z.regex(/^\d{1,12}$/))]),
  private_key: z.string().check(z.regex(/-----BEGIN (?:RSA )?PRIVATE KEY-----/, 'a PEM private key')),
  installation_id: z.union([z.int().check(z.positive()), z.string().check(z.regex(/^\d{1,15}$/))]),
});

/** A personal access token (classic or fine-grained). */
export type GitHubTokenSecret = z.output<typeof tokenSecret>;
/** A GitHub App installation: the app's id, its private key (PEM), the installation's id. */
export type GitHubAppSecret = z.output<typeof appSecret>;
/** The parsed `github_default` secret. */
export type GitHubSecret = GitHubTokenSecret | GitHubAppSecret;

/** Whether the secret is a GitHub App's. */
export function isAppSecret(secret: GitHubSecret): secret is GitHubAppSecret {
  return 'app_id' in secret;
}
