/**
 * Token scopes of REST connectors: which scopes each endpoint a connector calls
 * needs (its {@link ScopeTable}, from the vendor's reference pages), and which a
 * tool declares it needs (`ToolSpec.tokenScopes`). The connector session uses
 * the table to name the scope a 403 lacks when the API does not say it; the
 * tests check that every request a tool sends is covered by its declared scopes
 * (test/helpers/rest-tool.ts, `callRestTool`), the REST analogue of the IAM check
 * of the AWS tools. docs/rest-connectors.md, "Token scopes".
 */
import { channel } from 'node:diagnostics_channel';

/** A request method of a REST API. */
export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Scopes by scope system: the vendor's name for a family of scopes
 * (`github` fine-grained and GitHub App permissions, `github_classic` classic
 * token scopes, `hubspot` private-app scopes…), each a list of scopes that are
 * all needed, spelled as the vendor spells them (`pull_requests=read` as GitHub's
 * `x-accepted-github-permissions` header does, `crm.objects.contacts.read`).
 */
export type TokenScopes = Readonly<Record<string, readonly string[]>>;

/** One endpoint a connector calls and the scopes it needs. */
export interface EndpointScopes {
  readonly method: RestMethod;
  /**
   * The path below the base URL, `{name}` standing for one path segment
   * (`/repos/{owner}/{repo}/pulls`); matched without the query.
   */
  readonly path: string;
  /** The scopes the endpoint needs, per scope system; `{}` when it needs none. */
  readonly needs: TokenScopes;
  /** The vendor's reference page that states them. */
  readonly source: string;
}

/** The endpoints a connector calls. */
export type ScopeTable = readonly EndpointScopes[];

/** What the session publishes on {@link REST_REQUEST_CHANNEL} for each request it sends. */
export interface RestRequestMessage {
  /** The calling tool (`ToolContext.tool`). */
  readonly tool: string;
  /** The connector's `service`. */
  readonly service: string;
  readonly method: RestMethod;
  /** The path below the base URL, without the query. */
  readonly path: string;
  /** The connector's scope table; undefined when it declares none. */
  readonly scopes: ScopeTable | undefined;
}

/**
 * The `node:diagnostics_channel` every connector session publishes its requests
 * on (a message only when someone subscribes: nothing is built otherwise).
 */
export const REST_REQUEST_CHANNEL = channel('etp:rest:request');

const patterns = new WeakMap<EndpointScopes, RegExp>();

function patternOf(endpoint: EndpointScopes): RegExp {
  let pattern = patterns.get(endpoint);
  if (!pattern) {
    const source = endpoint.path
      .split(/\{[^}/]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    pattern = new RegExp(`^${source}/?$`);
    patterns.set(endpoint, pattern);
  }
  return pattern;
}

/** The table's entry for `method` and `path` (without query; a percent-encoded segment is one segment), if any. */
export function endpointScopes(table: ScopeTable, method: string, path: string): EndpointScopes | undefined {
  return table.find((endpoint) => endpoint.method === method && patternOf(endpoint).test(path));
}

/**
 * The scopes `needs` has that `declared` lacks, as `system:scope` strings
 * (`github:pull_requests=read`), in the table's order; empty when covered.
 */
export function uncoveredScopes(needs: TokenScopes, declared: TokenScopes | undefined): string[] {
  const missing: string[] = [];
  for (const [system, scopes] of Object.entries(needs)) {
    const has = new Set(declared?.[system] ?? []);
    for (const scope of scopes) if (!has.has(scope)) missing.push(`${system}:${scope}`);
  }
  return missing;
}

/** `needs` in words for an error message: `pull_requests=read (github), repo (github_classic)`. */
export function describeScopes(needs: TokenScopes): string | undefined {
  const parts = Object.entries(needs).flatMap(([system, scopes]) => scopes.map((s) => `${s} (${system})`));
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** The path of `url` below `baseUrl`'s path (what scope tables are written in), without the query. */
export function pathBelow(baseUrl: string, url: URL): string {
  const basePath = new URL(baseUrl).pathname.replace(/\/$/, '');
  return url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : url.pathname;
}

/** What `table` says `method` `path` needs, in words (for a 403 the API does not explain); undefined when unknown. */
export function scopesNeeded(
  table: ScopeTable | undefined,
  method: string,
  path: string,
): string | undefined {
  const endpoint = table && endpointScopes(table, method, path);
  return endpoint && describeScopes(endpoint.needs);
}

/** Publishes a request on {@link REST_REQUEST_CHANNEL}; `message` is built only when someone subscribes. */
export function publishRestRequest(message: () => RestRequestMessage): void {
  if (REST_REQUEST_CHANNEL.hasSubscribers) REST_REQUEST_CHANNEL.publish(message());
}
