import { type ErrorCode, PlatformError } from '../../runtime/errors';
import { linkHeaderPaginator, paginate } from '../../runtime/http/pagination';
import { normalizeError } from '../../runtime/normalize-error';
import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { github, repoPath } from './connector';
import { type ALERT_KINDS, type ALERT_STATES, githubSecurityAlertsSpec } from './security-alerts.meta';
import { shortText } from './text';

type Kind = (typeof ALERT_KINDS)[number];
type AlertState = (typeof ALERT_STATES)[number];

/** One alert as returned: never the secret of a secret scanning alert. */
export interface AlertItem {
  readonly number: number;
  readonly severity: string;
  /** The package (Dependabot), the rule (code scanning) or the secret type (secret scanning). */
  readonly subject: string;
  readonly summary: string | null;
  readonly path: string | null;
  readonly repo: string | null;
  readonly created_at: string | null;
  readonly url: string;
}

const SEVERITY_ORDER = [
  'critical',
  'high',
  'medium',
  'moderate',
  'low',
  'warning',
  'note',
  'error',
  'unknown',
];

const PATHS: Readonly<Record<Kind, string>> = {
  dependabot: 'dependabot/alerts',
  code_scanning: 'code-scanning/alerts',
  secret_scanning: 'secret-scanning/alerts',
};

/**
 * Secret scanning's `resolution` values ("List secret scanning alerts": a
 * comma-separated list of `false_positive`, `wont_fix`, `revoked`,
 * `pattern_edited`, `pattern_deleted`, `used_in_tests`). Only `revoked` ends the
 * secret's use, so it is what `fixed` means here; the others close the alert with
 * the secret as it was, `dismissed`.
 */
const SECRET_FIXED = 'revoked';
const SECRET_DISMISSED = 'false_positive,wont_fix,used_in_tests,pattern_edited,pattern_deleted';

/**
 * The tool's `state` as each list endpoint's own query, as GitHub's REST reference
 * spells it: Dependabot "List Dependabot alerts" (`state`, a comma-separated list of
 * `auto_dismissed`, `dismissed`, `fixed`, `open`), code scanning "List code scanning
 * alerts" (`code-scanning-alert-state-query`: `open`, `closed`, `dismissed`, `fixed`),
 * secret scanning "List secret scanning alerts" (`state` `open` or `resolved`, and
 * `resolution` to tell a revoked secret from a dismissed alert). `resolved` is every
 * alert no longer open (GitHub refuses `state=resolved` with 422 outside secret scanning).
 */
export const STATE_QUERY: Readonly<
  Record<Kind, Readonly<Record<AlertState, Readonly<Record<string, string>>>>>
> = {
  dependabot: {
    open: { state: 'open' },
    fixed: { state: 'fixed' },
    // Dismissed by a person or by an auto-triage rule: both are dismissed, as `resolved` counts them.
    dismissed: { state: 'dismissed,auto_dismissed' },
    resolved: { state: 'fixed,dismissed,auto_dismissed' },
  },
  code_scanning: {
    open: { state: 'open' },
    fixed: { state: 'fixed' },
    dismissed: { state: 'dismissed' },
    resolved: { state: 'closed' },
  },
  secret_scanning: {
    open: { state: 'open' },
    fixed: { state: 'resolved', resolution: SECRET_FIXED },
    dismissed: { state: 'resolved', resolution: SECRET_DISMISSED },
    resolved: { state: 'resolved' },
  },
};

/** Only named fields are read: a secret scanning alert's `secret` never leaves this function. */
function itemOf(kind: Kind, alert: Record<string, unknown>): AlertItem {
  const get = (path: string): unknown =>
    path
      .split('.')
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | null | undefined)?.[key], alert);
  const text = (path: string) => (typeof get(path) === 'string' ? (get(path) as string) : null);
  const repo = text('repository.full_name');
  const common = {
    number: Number(alert.number),
    repo,
    created_at: text('created_at'),
    url: text('html_url') ?? '',
  };
  if (kind === 'dependabot') {
    const pkg = [text('dependency.package.ecosystem'), text('dependency.package.name')]
      .filter(Boolean)
      .join(':');
    return {
      ...common,
      severity: text('security_advisory.severity') ?? text('security_vulnerability.severity') ?? 'unknown',
      subject: [pkg, text('security_advisory.ghsa_id')].filter(Boolean).join(' '),
      summary: text('security_advisory.summary')
        ? shortText(text('security_advisory.summary') as string)
        : null,
      path: text('dependency.manifest_path'),
    };
  }
  if (kind === 'code_scanning') {
    return {
      ...common,
      severity: text('rule.security_severity_level') ?? text('rule.severity') ?? 'unknown',
      subject: [text('tool.name'), text('rule.id')].filter(Boolean).join(' '),
      summary: text('rule.description') ? shortText(text('rule.description') as string) : null,
      path: text('most_recent_instance.location.path'),
    };
  }
  return {
    ...common,
    severity: text('validity') === 'active' ? 'active' : (text('validity') ?? 'unknown'),
    subject: text('secret_type_display_name') ?? text('secret_type') ?? 'secret',
    summary: null,
    path: null,
  };
}

function rank(severity: string): number {
  const at = SEVERITY_ORDER.indexOf(severity);
  return at < 0 ? SEVERITY_ORDER.length : at;
}

/** `github_security_alerts` with its handler. */
export const githubSecurityAlertsTool = defineTool(githubSecurityAlertsSpec, async (ctx, args) => {
  const session = github.session(ctx);
  const owner = args.repo ? repoPath(args.repo) : `/orgs/${encodeURIComponent(args.org as string)}`;
  const kinds: Record<string, unknown> = {};
  let truncated = false;
  let total = 0;
  for (const kind of args.kinds) {
    const query = STATE_QUERY[kind][args.state];
    try {
      const read = await paginate(
        session,
        { method: 'GET', path: `${owner}/${PATHS[kind]}`, query },
        {
          paginator: linkHeaderPaginator({ pageSizeParam: 'per_page', pageSize: 100 }),
          select: (body) => (Array.isArray(body) ? (body as Record<string, unknown>[]) : []),
          budget: { maxPages: 5, maxBytes: 8 * 1024 * 1024 },
        },
        ctx.deadline,
      );
      const items = read.records.map((alert) => itemOf(kind, alert));
      const bySeverity: Record<string, number> = {};
      for (const item of items) {
        const key = kind === 'secret_scanning' ? item.subject : item.severity;
        bySeverity[key] = (bySeverity[key] ?? 0) + 1;
      }
      items.sort((a, b) => rank(a.severity) - rank(b.severity) || b.number - a.number);
      total += items.length;
      truncated ||= !read.complete;
      kinds[kind] = {
        count: items.length,
        counted_all: read.complete,
        [kind === 'secret_scanning' ? 'by_secret_type' : 'by_severity']: bySeverity,
        top: items.slice(0, args.top),
        ...(read.retryAfterMs === undefined ? {} : { retry_after_ms: read.retryAfterMs }),
      };
    } catch (err) {
      // One kind not enabled (404/403) or throttled does not hide the others.
      const error = normalizeError(ctx.tool, err, 'github');
      kinds[kind] = { error: { code: error.code, message: error.message, retryable: error.retryable } };
      truncated = true;
    }
  }
  const failed = args.kinds.filter((kind) => (kinds[kind] as { error?: unknown }).error);
  if (failed.length === args.kinds.length) {
    // Nothing was read: the first kind's error is the call's.
    const first = kinds[args.kinds[0] as Kind] as { error: { code: ErrorCode; message: string } };
    throw new PlatformError(
      first.error.code,
      `No alerts could be read: ${failed.map((k) => `${k}: ${(kinds[k] as { error: { message: string } }).error.message}`).join('; ')}`,
      {
        service: 'github',
        retryable: failed.some((k) => (kinds[k] as { error: { retryable: boolean } }).error.retryable),
      },
    );
  }
  return {
    value: { target: args.repo ?? args.org, state: args.state, kinds },
    truncated,
    summary: `${total} ${args.state} security alert${total === 1 ? '' : 's'} in ${args.repo ?? args.org}${failed.length ? ` (${failed.join(', ')} unavailable)` : ''}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(githubSecurityAlertsTool);
