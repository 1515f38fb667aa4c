/**
 * A loopback fake of the PagerDuty REST API v2 for the PagerDuty tools' tests:
 * objects after the response examples of PagerDuty's OpenAPI description
 * (PagerDuty/api-schema, reference/REST/openapiv3.json: incident PT4KHLK "The
 * server is on fire.", service PIJ90N7 "My Mail Service", user PXPGF42 "Earline
 * Greenholt", schedule PI7DH85 "Daily Engineering Rotation"), classic offset
 * pagination (`limit`, `offset`, `more`), the `ratelimit-*` headers, the error
 * body `{ "error": { "code", "message", "errors" } }`, and both auth schemes:
 * `Token token=<key>` and an OAuth bearer with scopes.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type ApiRequest, type FakeApi, startFakeApi } from './fake-api';
import { sendJson } from './loopback-server';

const API = 'https://api.pagerduty.com';
const WEB = 'https://subdomain.pagerduty.com';

type Raw = Record<string, unknown>;

/** A reference as PagerDuty embeds it. */
export function ref(type: string, id: string, summary: string, path: string): Raw {
  return { id, type, summary, self: `${API}/${path}/${id}`, html_url: `${WEB}/${path}/${id}` };
}

const SERVICE = ref('service_reference', 'PIJ90N7', 'My Mail Service', 'services');
const POLICY = ref(
  'escalation_policy_reference',
  'PT20YPA',
  'Engineering Escalation Policy',
  'escalation_policies',
);
const USER = ref('user_reference', 'PXPGF42', 'Earline Greenholt', 'users');

/** An incident (the documented example, numbered and timed). */
export function pdIncident(
  id: string,
  number: number,
  fields: { status: string; urgency: string; createdAt: string; title?: string },
): Raw {
  return {
    id,
    type: 'incident',
    summary: `[#${number}] ${fields.title ?? 'The server is on fire.'}`,
    self: `${API}/incidents/${id}`,
    html_url: `${WEB}/incidents/${id}`,
    incident_number: number,
    title: fields.title ?? 'The server is on fire.',
    created_at: fields.createdAt,
    updated_at: fields.createdAt,
    status: fields.status,
    incident_key: 'baf7cf21b1da41b4b0221008339ff357',
    service: SERVICE,
    assignments: fields.status === 'resolved' ? [] : [{ at: fields.createdAt, assignee: USER }],
    assigned_via: 'escalation_policy',
    last_status_change_at: fields.createdAt,
    resolved_at: fields.status === 'resolved' ? fields.createdAt : null,
    first_trigger_log_entry: ref(
      'trigger_log_entry_reference',
      'Q02JTSNZWHSEKV',
      'Triggered through the API',
      'log_entries',
    ),
    alert_counts: {
      all: 2,
      triggered: fields.status === 'resolved' ? 0 : 1,
      resolved: fields.status === 'resolved' ? 2 : 1,
    },
    is_mergeable: true,
    escalation_policy: POLICY,
    teams: [ref('team_reference', 'PQ9K7I8', 'Engineering', 'teams')],
    urgency: fields.urgency,
    priority: { id: 'P53ZZH5', type: 'priority_reference', summary: 'P2', self: `${API}/priorities/P53ZZH5` },
  };
}

/** An alert of an incident (the documented example, with its custom details). */
export function pdAlert(incidentId: string, index: number, createdAt: string): Raw {
  return {
    id: `PALERT${index}`,
    type: 'alert',
    summary: index === 0 ? 'The server is on fire.' : `Disk latency high on db-${index}`,
    self: `${API}/incidents/${incidentId}/alerts/PALERT${index}`,
    html_url: `${WEB}/alerts/PALERT${index}`,
    created_at: createdAt,
    status: 'triggered',
    alert_key: 'baf7cf21b1da41b4b0221008339ff357',
    service: SERVICE,
    body: {
      type: 'alert_body',
      contexts: [{ type: 'link' }],
      details: { customKey: 'Server is on fire!', customKey2: 'Other stuff!' },
    },
    incident: { id: incidentId, type: 'incident_reference' },
    suppressed: false,
    severity: index === 0 ? 'critical' : 'warning',
  };
}

/** A log entry (the documented `trigger_log_entry`, and others of the timeline). */
export function pdLogEntry(incidentId: string, index: number, type: string, createdAt: string): Raw {
  return {
    id: `Q0LOG${String(index).padStart(4, '0')}`,
    type,
    summary:
      type === 'trigger_log_entry'
        ? 'Triggered through the API'
        : type === 'acknowledge_log_entry'
          ? 'Acknowledged by Earline Greenholt'
          : `Notified Earline Greenholt (${index})`,
    self: `${API}/log_entries/Q0LOG${index}?incident_id=${incidentId}`,
    html_url: `${WEB}/incidents/${incidentId}/log_entries/Q0LOG${index}`,
    created_at: createdAt,
    agent: type === 'trigger_log_entry' ? SERVICE : USER,
    channel: { type: 'api' },
    incident: ref('incident_reference', incidentId, '[#1234] The server is on fire.', 'incidents'),
    teams: [ref('team_reference', 'PQ9K7I8', 'Engineering', 'teams')],
    contexts: [],
  };
}

/** An on-call entry (the documented example). */
export function pdOncall(level: number): Raw {
  return {
    user: ref(
      'user_reference',
      level === 1 ? 'PT23IWX' : 'PXPGF42',
      level === 1 ? 'Tim Wright' : 'Earline Greenholt',
      'users',
    ),
    schedule: ref('schedule_reference', 'PI7DH85', 'Daily Engineering Rotation', 'schedules'),
    escalation_policy: POLICY,
    escalation_level: level,
    start: '2015-03-06T15:28:51-05:00',
    end: '2015-03-07T15:28:51-05:00',
  };
}

/** What the fake holds. */
export interface PagerDutyWorld {
  incidents: Raw[];
  alerts: Record<string, Raw[]>;
  logEntries: Record<string, Raw[]>;
  notes: Record<string, Raw[]>;
  oncalls: Raw[];
}

/** How the fake is set up. */
export interface PagerDutyServerOptions {
  readonly world: PagerDutyWorld;
  /** Scopes of the OAuth token (`incidents.read`…). @default ['incidents.read', 'incidents.write', 'oncalls.read'] */
  readonly oauthScopes?: readonly string[];
}

/** The running fake. */
export interface LocalPagerDuty extends FakeApi {
  readonly apiUrl: string;
  /** An account-level REST API key (20 characters, no prefix: PagerDuty keys have none). */
  readonly apiKey: string;
  /** An OAuth access token. */
  readonly oauthToken: string;
  readonly world: PagerDutyWorld;
  acceptKey(key: string): void;
  revoke(key: string): void;
}

const error = (response: ServerResponse, status: number, code: number, message: string, errors?: string[]) =>
  sendJson(response, status, { error: { code, message, ...(errors ? { errors } : {}) } });

/** A 20-character key of PagerDuty's alphabet. */
export function pagerdutyKey(): string {
  return randomBytes(20).toString('base64').replace(/[/=]/g, 'x').slice(0, 20);
}

/** Starts the fake. */
export async function startPagerDutyServer(options: PagerDutyServerOptions): Promise<LocalPagerDuty> {
  const { world } = options;
  const apiKey = pagerdutyKey();
  const oauthToken = `pdus+_0X${randomBytes(24).toString('hex')}`;
  const keys = new Set([apiKey]);
  const revoked = new Set<string>();
  let remaining = 960;

  const withQuota = (response: ServerResponse) => {
    remaining = Math.max(0, remaining - 1);
    response.setHeader('ratelimit-limit', '960');
    response.setHeader('ratelimit-remaining', String(remaining));
    response.setHeader('ratelimit-reset', '60');
  };

  const caller = (request: ApiRequest): { kind: 'key' | 'oauth'; scopes: readonly string[] } | undefined => {
    const auth = String(request.headers.authorization ?? '');
    const key = /^Token token=(\S+)$/.exec(auth)?.[1];
    if (key && keys.has(key) && !revoked.has(key)) return { kind: 'key', scopes: ['*'] };
    const bearer = /^Bearer (\S+)$/.exec(auth)?.[1];
    if (bearer === oauthToken && !revoked.has(bearer)) {
      return {
        kind: 'oauth',
        scopes: options.oauthScopes ?? ['incidents.read', 'incidents.write', 'oncalls.read'],
      };
    }
    return undefined;
  };

  /** Classic pagination: `limit` (default 25, at most 100), `offset`, `more`. */
  const page = (request: ApiRequest, response: ServerResponse, key: string, items: readonly Raw[]) => {
    const limit = Math.min(100, Math.max(1, Number(request.query.get('limit') ?? 25)));
    const offset = Math.max(0, Number(request.query.get('offset') ?? 0));
    // "Pagination" (classic): offset + limit may not pass 10,000.
    if (offset + limit > 10_000) {
      error(response, 400, 2001, 'Invalid Input Provided', ['offset + limit may not exceed 10000']);
      return;
    }
    const slice = items.slice(offset, offset + limit);
    sendJson(response, 200, {
      [key]: slice,
      limit,
      offset,
      more: offset + slice.length < items.length,
      total: null,
    });
  };

  const route = async (request: ApiRequest, response: ServerResponse): Promise<boolean> => {
    withQuota(response);
    if (request.headers.accept !== 'application/vnd.pagerduty+json;version=2') {
      error(response, 400, 2001, 'Invalid Input Provided', [
        'Accept header must be application/vnd.pagerduty+json;version=2',
      ]);
      return true;
    }
    const who = caller(request);
    if (!who) {
      error(response, 401, 2006, 'Authentication failed');
      return true;
    }
    const needs = (scope: string) => {
      if (who.scopes.includes('*') || who.scopes.includes(scope)) return false;
      error(response, 403, 2010, 'Access Denied');
      return true;
    };
    if (request.method === 'GET' && request.path === '/incidents') {
      if (needs('incidents.read')) return true;
      const statuses = request.query.getAll('statuses[]');
      const urgencies = request.query.getAll('urgencies[]');
      const services = request.query.getAll('service_ids[]');
      const since = Date.parse(request.query.get('since') ?? '') || 0;
      const until = Date.parse(request.query.get('until') ?? '') || Number.POSITIVE_INFINITY;
      // "List incidents": since..until is at most 6 months.
      const sixMonths = new Date(since);
      sixMonths.setUTCMonth(sixMonths.getUTCMonth() + 6);
      if (since > 0 && until !== Number.POSITIVE_INFINITY && until > sixMonths.getTime()) {
        error(response, 400, 2001, 'Invalid Input Provided', ['Date range may not exceed 6 months']);
        return true;
      }
      const incidents = world.incidents
        .filter(
          (i) =>
            (statuses.length === 0 || statuses.includes(String(i.status))) &&
            (urgencies.length === 0 || urgencies.includes(String(i.urgency))) &&
            (services.length === 0 || services.includes(String((i.service as Raw).id))) &&
            Date.parse(String(i.created_at)) >= since &&
            Date.parse(String(i.created_at)) < until,
        )
        .sort((a, b) => Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)));
      page(request, response, 'incidents', incidents);
      return true;
    }
    const match = /^\/incidents\/([A-Z0-9]+)(\/alerts|\/log_entries|\/notes)?$/.exec(request.path);
    if (match) {
      const id = match[1] as string;
      const incident = world.incidents.find((i) => i.id === id);
      if (!incident) {
        error(response, 404, 2100, 'Not Found');
        return true;
      }
      const sub = match[2];
      if (request.method === 'POST' && sub === '/notes') {
        if (needs('incidents.write')) return true;
        if (who.kind === 'key' && !request.headers.from) {
          error(response, 400, 2001, 'Invalid Input Provided', [
            'A valid "From" header is required for this request',
          ]);
          return true;
        }
        const content = (JSON.parse(request.body || '{}') as { note?: { content?: unknown } }).note?.content;
        if (typeof content !== 'string' || content === '') {
          error(response, 400, 2001, 'Invalid Input Provided', ['Content cannot be empty']);
          return true;
        }
        const note = {
          id: `PNOTE${(world.notes[id] ?? []).length + 1}`,
          user: USER,
          channel: { summary: 'The PagerDuty website or APIs' },
          content,
          created_at: new Date().toISOString(),
        };
        world.notes[id] = [...(world.notes[id] ?? []), note];
        sendJson(response, 201, { note });
        return true;
      }
      if (request.method !== 'GET' || needs('incidents.read')) return request.method === 'GET';
      if (!sub) sendJson(response, 200, { incident });
      else if (sub === '/alerts') page(request, response, 'alerts', world.alerts[id] ?? []);
      else if (sub === '/log_entries') page(request, response, 'log_entries', world.logEntries[id] ?? []);
      else sendJson(response, 200, { notes: world.notes[id] ?? [] });
      return true;
    }
    if (request.method === 'GET' && request.path === '/oncalls') {
      if (needs('oncalls.read')) return true;
      const schedules = request.query.getAll('schedule_ids[]');
      const policies = request.query.getAll('escalation_policy_ids[]');
      const oncalls = world.oncalls.filter(
        (o) =>
          (schedules.length === 0 || schedules.includes(String((o.schedule as Raw).id))) &&
          (policies.length === 0 || policies.includes(String((o.escalation_policy as Raw).id))),
      );
      page(request, response, 'oncalls', oncalls);
      return true;
    }
    return false;
  };

  const api = await startFakeApi(route, (response) => error(response, 404, 2100, 'Not Found'));
  return {
    ...api,
    apiUrl: api.url,
    apiKey,
    oauthToken,
    world,
    acceptKey: (key) => {
      keys.add(key);
    },
    revoke: (key) => {
      revoked.add(key);
    },
  };
}
