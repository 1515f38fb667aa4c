// One job despite its length (judged for issue 16): the console API's route table, one entry per route, and the matching that serves it.
/**
 * The console's API: one table of routes, each a method, a path pattern and a
 * handler, shared by the Lambda (handler.ts) and `etp console`. A route under
 * `/api/tenants/:tenant/` answers 403 before anything is read unless the user's
 * groups name that tenant (authz.ts). Only secret references travel: never a
 * secret value, never a task token.
 */
import { type ErrorCode, InvalidArgsError, PlatformError } from '../runtime/errors';
import {
  assertIdentifier,
  type IdentifierRule,
  RUN_ID,
  SECRET_NAME,
  SNAKE_CASE_NAME,
  TENANT_ID,
} from '../runtime/ids';
import { redact, redactString } from '../runtime/redact';
import { CONVENTION_RULE, conventionalSecretVariable } from '../runtime/secrets/providers';
import { REF_KINDS, type SecretReference, validateReference } from '../runtime/secrets/reference';
import { type ConsoleUser, mayAccess } from './authz';
import type { ConsoleBackend, SecretTagCheck } from './backend';
import { eventsFromWorkspace } from './live';
import { MAX_ANSWER_CHARS } from './questions';
import { listRuns, runDetail } from './runs';

/** A request as the router sees it: already authenticated. */
export interface ConsoleRequest {
  readonly method: string;
  /** The path without query, e.g. `/api/tenants/acme/secrets`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, or undefined. */
  readonly body?: unknown;
  readonly user: ConsoleUser;
}

/** A JSON response. */
export interface ConsoleResponse {
  readonly status: number;
  readonly body: unknown;
}

interface RouteContext {
  readonly request: ConsoleRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly backend: ConsoleBackend;
}

/** One route of the API. */
export interface ConsoleRoute {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** `/api/...` with `:name` segments. */
  readonly pattern: string;
  handle(context: RouteContext): Promise<ConsoleResponse>;
}

/** HTTP status of each platform error code the API returns; anything else is 500. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_args: 400,
  unknown_scenario: 404,
  not_found: 404,
  access_denied: 403,
  secret_not_found: 404,
  limit_exceeded: 413,
};

/** The rule each path parameter must satisfy. */
const PARAM_RULES: Readonly<Record<string, IdentifierRule>> = {
  tenant: TENANT_ID,
  name: SECRET_NAME,
  scenario: SNAKE_CASE_NAME,
  runId: RUN_ID,
};

const ok = (body: unknown, status = 200): ConsoleResponse => ({ status, body });

/** Unknown field names shown in an error, at most, each cut to {@link MAX_FIELD_NAME_CHARS}. */
const MAX_SHOWN_FIELDS = 10;
const MAX_FIELD_NAME_CHARS = 64;

/**
 * `body` as a JSON object holding only the `accepted` fields: a misspelt field
 * (`note`, `ref_valu`) is refused rather than dropped, as nothing the page sends is ignored.
 *
 * @param what - what the object is, for the message: `the body`, `input`.
 * @throws InvalidArgsError naming the unknown fields and the accepted ones.
 */
function bodyObject(body: unknown, accepted: readonly string[], what = 'the body'): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidArgsError(
      `${what}: expected a JSON object${accepted.length > 0 ? ` of ${accepted.join(', ')}` : ''}`,
    );
  }
  const unknown = Object.keys(body).filter((key) => !accepted.includes(key));
  if (unknown.length > 0) {
    const shown = unknown
      .slice(0, MAX_SHOWN_FIELDS)
      .map((key) =>
        JSON.stringify(key.length > MAX_FIELD_NAME_CHARS ? `${key.slice(0, MAX_FIELD_NAME_CHARS)}…` : key),
      );
    const more = unknown.length > MAX_SHOWN_FIELDS ? ` and ${unknown.length - MAX_SHOWN_FIELDS} more` : '';
    throw new InvalidArgsError(
      `${what}: unknown field${unknown.length > 1 ? 's' : ''} ${shown.join(', ')}${more}; accepted: ${accepted.join(', ')}`,
    );
  }
  return body as Record<string, unknown>;
}

/** The input of a run started from the page: any JSON object (the scenario's inputs check its keys). */
function inputObject(input: unknown): Record<string, unknown> {
  if (input === undefined) return {};
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidArgsError(
      'input: expected a JSON object of the scenario\'s inputs, such as {"regions":["eu-west-1"]}',
    );
  }
  return input as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidArgsError(`${key}: expected a string`);
  return value;
}

function knownScenario(backend: ConsoleBackend, scenario: string): void {
  if (!backend.catalog.scenarios.some((known) => known.name === scenario)) {
    throw new PlatformError(
      'unknown_scenario',
      `Unknown scenario ${scenario}. Scenarios: ${backend.catalog.scenarios.map((s) => s.name).join(', ')}`,
    );
  }
}

/**
 * The kinds a reference may be given from the page: those that point at a value
 * (`env`, `secrets_manager`). An `inline` reference holds the sealed value itself,
 * and the console never handles values.
 */
const CONSOLE_REF_KINDS = REF_KINDS.filter((kind) => kind !== 'inline');

/**
 * A reference row as sent to the page, with the tag check of a Secrets Manager
 * secret; an inline row's ciphertext stays on the server (its fingerprint is shown).
 */
async function referenceView(
  backend: ConsoleBackend,
  row: SecretReference,
): Promise<SecretReference & { tags?: SecretTagCheck }> {
  const view = redact({ ...row });
  if (row.ref_kind === 'inline') return { ...view, ref_value: 'encrypted' };
  if (row.ref_kind !== 'secrets_manager') return view;
  return { ...view, tags: await backend.secretTags(row.ref_value, row.tenant_id, row.secret_name) };
}

/** Every route, in match order. */
export const CONSOLE_ROUTES: readonly ConsoleRoute[] = [
  {
    method: 'GET',
    pattern: '/api/session',
    async handle({ request, backend }) {
      const tenants =
        request.user.tenants === '*' ? await backend.knownTenants() : [...request.user.tenants].sort();
      return ok({
        user: request.user.name,
        mode: backend.mode,
        tenants,
        canStartRuns: backend.starter !== undefined,
      });
    },
  },
  {
    method: 'GET',
    pattern: '/api/catalog',
    async handle({ backend }) {
      return ok(backend.catalog);
    },
  },
  {
    method: 'GET',
    pattern: '/api/tenants/:tenant/secrets',
    async handle({ params, backend }) {
      const rows = await backend.references.list(params.tenant);
      return ok({ references: await Promise.all(rows.map((row) => referenceView(backend, row))) });
    },
  },
  {
    method: 'PUT',
    pattern: '/api/tenants/:tenant/secrets/:name',
    async handle({ params, request, backend }) {
      const body = bodyObject(request.body, ['ref_kind', 'ref_value', 'notes']);
      const tenant = params.tenant ?? '';
      const name = params.name ?? '';
      const kind = optionalString(body, 'ref_kind');
      if (kind === 'inline') {
        throw new InvalidArgsError(
          'ref_kind inline: the console never handles secret values; seal an inline value from a file with ' +
            'etp secrets seed --ref-kind inline --value-file (docs/inline-secrets.md)',
        );
      }
      if (!kind || !(CONSOLE_REF_KINDS as readonly string[]).includes(kind)) {
        throw new InvalidArgsError(`ref_kind: expected one of ${CONSOLE_REF_KINDS.join(', ')}`);
      }
      let value = optionalString(body, 'ref_value');
      if (value === undefined && kind === 'env') value = conventionalSecretVariable(tenant, name);
      if (value === undefined) {
        throw new InvalidArgsError(
          kind === 'env'
            ? `ref_value: required, ${tenant}/${name} has no conventional variable (${CONVENTION_RULE})`
            : 'ref_value: required for secrets_manager: the secret ARN (never the secret itself)',
        );
      }
      const notes = optionalString(body, 'notes');
      const row = validateReference({
        tenant_id: tenant,
        secret_name: name,
        ref_kind: kind as (typeof CONSOLE_REF_KINDS)[number],
        ref_value: value,
        ...(notes !== undefined ? { notes } : {}),
        created_by: `console:${request.user.name}`,
      });
      const tags =
        row.ref_kind === 'secrets_manager'
          ? await backend.secretTags(row.ref_value, tenant, name)
          : undefined;
      if (tags?.status === 'other') {
        throw new PlatformError(
          'access_denied',
          `The secret is tagged for another tenant or secret name: one secret serves one tenant's one name; create a secret for ${tenant}/${name}`,
        );
      }
      const saved = await backend.references.put(row);
      return ok({ reference: { ...redact(saved), ...(tags ? { tags } : {}) } });
    },
  },
  {
    method: 'DELETE',
    pattern: '/api/tenants/:tenant/secrets/:name',
    async handle({ params, backend }) {
      const deleted = await backend.references.delete(params.tenant ?? '', params.name ?? '');
      if (!deleted) {
        throw new PlatformError(
          'not_found',
          `Tenant ${params.tenant} has no secret reference ${params.name}`,
        );
      }
      return ok({ deleted: true });
    },
  },
  {
    method: 'GET',
    pattern: '/api/tenants/:tenant/runs',
    async handle({ params, request, backend }) {
      const scenario = request.query.scenario || undefined;
      if (scenario !== undefined) {
        assertIdentifier(SNAKE_CASE_NAME, scenario, 'scenario');
        knownScenario(backend, scenario);
      }
      const before = request.query.before || undefined;
      return ok(await listRuns(backend.runs, backend.workspaces, params.tenant ?? '', scenario, before));
    },
  },
  {
    method: 'POST',
    pattern: '/api/tenants/:tenant/runs',
    async handle({ params, request, backend }) {
      if (!backend.starter) {
        throw new PlatformError(
          'invalid_args',
          'This console does not start runs: start a deployed run with etp scenario start',
        );
      }
      const body = bodyObject(request.body, ['scenario', 'input']);
      const scenario = optionalString(body, 'scenario') ?? '';
      assertIdentifier(SNAKE_CASE_NAME, scenario, 'scenario');
      knownScenario(backend, scenario);
      const input = inputObject(body.input);
      const started = await backend.starter.start(params.tenant ?? '', scenario, input);
      return ok({ tenant: params.tenant, scenario, runId: started.runId }, 202);
    },
  },
  {
    method: 'GET',
    pattern: '/api/tenants/:tenant/runs/:scenario/:runId',
    async handle({ params, backend }) {
      const scenario = params.scenario ?? '';
      knownScenario(backend, scenario);
      const levels = backend.catalog.scenarios.find((known) => known.name === scenario)?.levels ?? [];
      return ok(
        await runDetail(
          backend.workspaces,
          params.tenant ?? '',
          scenario,
          params.runId ?? '',
          levels.map((level) => level.name),
        ),
      );
    },
  },
  {
    method: 'GET',
    pattern: '/api/tenants/:tenant/runs/:scenario/:runId/events',
    async handle({ params, request, backend }) {
      const tenant = params.tenant ?? '';
      const scenario = params.scenario ?? '';
      const runId = params.runId ?? '';
      knownScenario(backend, scenario);
      const after = Number(request.query.after ?? 0);
      if (!Number.isInteger(after) || after < 0)
        throw new InvalidArgsError('after: expected a whole number ≥ 0');
      // A run this console runs itself, else its execution history (deployed), else its workspace files.
      const own = backend.live?.events(tenant, scenario, runId, after);
      const events =
        own ??
        (
          (await backend.history?.(tenant, scenario, runId)) ??
          (await eventsFromWorkspace(backend.workspaces({ tenant, scenario, runId })))
        ).slice(after);
      return ok({ events, next: after + events.length });
    },
  },
  {
    method: 'GET',
    pattern: '/api/tenants/:tenant/runs/:scenario/:runId/file',
    async handle({ params, request, backend }) {
      knownScenario(backend, params.scenario ?? '');
      const path = request.query.path ?? '';
      const workspace = backend.workspaces({
        tenant: params.tenant ?? '',
        scenario: params.scenario ?? '',
        runId: params.runId ?? '',
      });
      // The workspace checks the path (functions/runtime/workspace-path.ts): invalid_args for an escape.
      const read = await workspace.read(path, { length: 262_144 });
      return ok({
        path: read.path,
        content: redactString(read.content),
        bytes: read.bytes,
        totalBytes: read.totalBytes,
      });
    },
  },
  {
    method: 'GET',
    pattern: '/api/tenants/:tenant/questions',
    async handle({ params, backend }) {
      return ok({ questions: redact(await backend.questions.open(params.tenant ?? '')) });
    },
  },
  {
    method: 'POST',
    pattern: '/api/tenants/:tenant/questions/:runId/answer',
    async handle({ params, request, backend }) {
      const text = (optionalString(bodyObject(request.body, ['text']), 'text') ?? '').trim();
      if (text === '' || text.length > MAX_ANSWER_CHARS) {
        throw new InvalidArgsError(`text: expected an answer of 1-${MAX_ANSWER_CHARS} characters`);
      }
      await backend.questions.answer(
        params.tenant ?? '',
        params.runId ?? '',
        text,
        `console:${request.user.name}`,
      );
      return ok({ answered: true });
    },
  },
];

/** The parameters of `path` when it matches `pattern`, else undefined. */
export function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const actual = got[index] ?? '';
    if (segment.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
      params[segment.slice(1)] = decoded;
    } else if (segment !== actual) return undefined;
  }
  return params;
}

/** An error as the API answers it: its code and message (redacted), the HTTP status of its code. */
export function errorResponse(err: unknown): ConsoleResponse {
  if (err instanceof PlatformError) {
    return {
      status: STATUS[err.code] ?? 500,
      body: { error: { code: err.code, message: redactString(err.message) } },
    };
  }
  // Not ours (an SDK error): its name only, never a message that may echo a request.
  const name = err instanceof Error ? err.name : 'Error';
  return {
    status: 500,
    body: { error: { code: 'internal_error', message: `The console API failed (${name})` } },
  };
}

/**
 * Answers one API request; never throws.
 *
 * @returns 404 for an unknown path, 405 for a known path with another method, 403 for a
 *   tenant the user's groups do not name (checked first), 400 for a malformed parameter or body.
 */
export async function handleConsoleRequest(
  request: ConsoleRequest,
  backend: ConsoleBackend,
): Promise<ConsoleResponse> {
  try {
    const matches = CONSOLE_ROUTES.map((route) => ({
      route,
      params: matchPattern(route.pattern, request.path),
    })).filter((match) => match.params !== undefined);
    if (matches.length === 0)
      return errorResponse(new PlatformError('not_found', `No API route ${request.path}`));
    const match = matches.find((candidate) => candidate.route.method === request.method);
    const params = (match ?? matches[0])?.params ?? {};
    if (params.tenant !== undefined && !mayAccess(request.user, params.tenant)) {
      return {
        status: 403,
        body: { error: { code: 'access_denied', message: 'Your groups do not name this tenant' } },
      };
    }
    if (!match) {
      return {
        status: 405,
        body: {
          error: {
            code: 'invalid_args',
            message: `${request.method} is not accepted here; accepted: ${matches.map((m) => m.route.method).join(', ')}`,
          },
        },
      };
    }
    for (const [name, value] of Object.entries(params)) {
      const rule = PARAM_RULES[name];
      if (rule) assertIdentifier(rule, value, name);
    }
    // Deployed, the tenant's stores are reached with its tenant-tagged session: IAM holds the line.
    const scoped =
      params.tenant !== undefined && backend.forTenant ? backend.forTenant(params.tenant) : backend;
    return await match.route.handle({ request, params, backend: scoped });
  } catch (err) {
    return errorResponse(err);
  }
}
