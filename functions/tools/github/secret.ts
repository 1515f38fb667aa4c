/**
 * The `github_default` secret's accepted payloads (a leaf module: the connector and the App auth both read it).
 * Built on first use, not at module load: a function's cold start pays for every
 * module-scope zod schema (functions/runtime/built-once.ts).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';

const tokenSecret = () =>
  z.strictObject({
    token: z
      .string()
      .check(
        z.regex(/^\S{20,255}$/, 'a token of 20-255 characters without white space: ghp_…, github_pat_…'),
      ),
  });

const appSecret = () =>
  z.strictObject({
    app_id: z.union([
      z.int().check(z.positive()),
      z.string().check(z.regex(/^\d{1,12}$/, 'a GitHub App id: 1-12 digits')),
    ]),
    private_key: z.string().check(z.regex(/-----BEGIN (?:RSA )?PRIVATE KEY-----/, 'a PEM private key')),
    installation_id: z.union([
      z.int().check(z.positive()),
      z.string().check(z.regex(/^\d{1,15}$/, 'an installation id: 1-15 digits')),
    ]),
  });

/** A personal access token (classic or fine-grained). */
export type GitHubTokenSecret = z.output<ReturnType<typeof tokenSecret>>;
/** A GitHub App installation: the app's id, its private key (PEM), the installation's id. */
export type GitHubAppSecret = z.output<ReturnType<typeof appSecret>>;
/** The parsed `github_default` secret. */
export type GitHubSecret = GitHubTokenSecret | GitHubAppSecret;

/** The whole payload's schema: an App installation or a token. */
export const githubSecretSchema = builtOnce(
  () => z.union([appSecret(), tokenSecret()]) as z.ZodMiniType<GitHubSecret>,
);

/** Whether the secret is a GitHub App's. */
export function isAppSecret(secret: GitHubSecret): secret is GitHubAppSecret {
  return 'app_id' in secret;
}
