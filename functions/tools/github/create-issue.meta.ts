import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { defineToolSpec } from '../../runtime/spec';
import { repoArg } from './schemas';

/** Longest issue body taken, characters (GitHub stores at most 65,536; room is kept for the call's marker). */
export const ISSUE_BODY_MAX_CHARS = 60_000;

const login = builtOnce(() =>
  z.string().check(z.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'a GitHub login')),
);

/** `github_create_issue`: opens an issue, exactly once per call. */
export const githubCreateIssueSpec = defineToolSpec({
  name: 'github_create_issue',
  tokenScopes: { github: ['issues=write', 'issues=read'], github_classic: ['repo'] },
  description:
    "Opens an issue in a GitHub repository (title, body in Markdown, labels, assignees) with the tenant's " +
    'github_default credential (Issues: write). At most one issue per title and repository per run (a second ' +
    "call gets the first call's result, or is refused when its other arguments differ), exactly once whatever " +
    'retries happen: the body ends with ' +
    'a hidden marker of the call, and an issue whose answer was lost is found by it instead of opened again. ' +
    'Returns the issue number and url, and recovered: true when it was found already open.',
  inputSchema: () =>
    z.strictObject({
      repo: repoArg(),
      title: z.string().check(z.minLength(1), z.maxLength(256), z.describe('Issue title, 1-256 characters.')),
      body: z._default(
        z
          .string()
          .check(
            z.maxLength(ISSUE_BODY_MAX_CHARS),
            z.describe(`Markdown body, at most ${ISSUE_BODY_MAX_CHARS} characters.`),
          ),
        '',
      ),
      labels: z.optional(
        z
          .array(z.string().check(z.minLength(1), z.maxLength(50)))
          .check(z.maxLength(10), z.describe('Label names (at most 10).')),
      ),
      assignees: z.optional(
        z.array(login()).check(z.maxLength(10), z.describe('Logins to assign (at most 10).')),
      ),
    }),
  tags: ['github', 'write'],
  service: 'github',
  requiresSecrets: ['github_default'],
  sideEffects: 'write',
  destinationArgs: ['repo'],
  // One issue per title per repository per run (docs/rest-connectors.md, "Once per target").
  oncePerRunArgs: ['repo', 'title'],
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
});
