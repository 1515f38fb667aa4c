// The console page: plain DOM, no framework and no build step (a framework would
// be most of the first load for five small pages). Every text from the API goes
// in as a text node (`h()` never parses HTML), so a finding's resource name, a
// Slack text or a tenant's notes always render as text. Hash routes: #/secrets,
// #/runs, #/run/<tenant>/<scenario>/<runId>, #/live/<tenant>/<scenario>/<runId>,
// #/questions, #/tools.

const main = document.getElementById('main');
const status = document.getElementById('status');
const tenantSelect = document.getElementById('tenant');
const state = {
  session: undefined,
  tenant: undefined,
  token: undefined,
  catalog: undefined,
  timer: undefined,
};

/** An element with attributes (`on…` functions become listeners) and children (strings become text). */
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false || value === null) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

let fieldCount = 0;

/** A form field: its label tied to the control by id, so the label's text alone names it. */
function field(text, control) {
  fieldCount += 1;
  control.id = `field-${fieldCount}`;
  return h('div', { class: 'field' }, h('label', { for: control.id }, text), control);
}

function say(text) {
  status.textContent = text;
}

function page(title, ...children) {
  const heading = h('h1', { tabindex: '-1' }, title);
  main.replaceChildren(heading, h('div', {}, children));
  document.title = `${title} · External Tools Platform console`;
  // After a move within the console, focus goes to the new page's heading; on first load it stays at the
  // document's start, so the first Tab reaches the skip link.
  if (state.moved) heading.focus();
}

function table(caption, headers, rows) {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((name) => h('th', { scope: 'col' }, name)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length
        ? rows.map((cells) =>
            h(
              'tr',
              {},
              cells.map((cell) => h('td', {}, cell)),
            ),
          )
        : h('tr', {}, h('td', { colspan: headers.length }, 'None.')),
    ),
  );
}

const usd = (value) => (typeof value === 'number' ? `$${value.toFixed(value < 0.01 ? 6 : 4)}` : '');
const tenantPath = (tenant) => `/api/tenants/${encodeURIComponent(tenant)}`;

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(state.token ? { Authorization: `Bearer ${state.token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error?.message ?? `${response.status} ${response.statusText}`);
  return data;
}

// ---- Sign-in (deployed): Cognito's authorization code flow with PKCE; the ID token stays in this tab.

function base64Url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

async function signIn(config) {
  const stored = sessionStorage.getItem('etp-token');
  const expires = Number(sessionStorage.getItem('etp-token-expires') ?? 0);
  if (stored && expires > Date.now() + 60_000) return stored;
  const query = new URLSearchParams(location.search);
  const code = query.get('code');
  if (code && query.get('state') === sessionStorage.getItem('etp-state')) {
    const response = await fetch(`${config.domain}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: config.clientId,
        code,
        redirect_uri: config.redirectUri,
        code_verifier: sessionStorage.getItem('etp-verifier') ?? '',
      }),
    });
    const tokens = await response.json();
    if (!response.ok) throw new Error(`Sign-in failed: ${tokens.error ?? response.status}`);
    sessionStorage.setItem('etp-token', tokens.id_token);
    sessionStorage.setItem('etp-token-expires', String(Date.now() + tokens.expires_in * 1000));
    history.replaceState(null, '', `${location.pathname}${sessionStorage.getItem('etp-hash') ?? ''}`);
    return tokens.id_token;
  }
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64Url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const nonce = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem('etp-verifier', verifier);
  sessionStorage.setItem('etp-state', nonce);
  sessionStorage.setItem('etp-hash', location.hash);
  const authorize = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: 'openid email',
    state: nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`${config.domain}/oauth2/authorize?${authorize}`);
  return new Promise(() => {});
}

// ---- Secret references

function secretForm(reference, refresh) {
  const name = h('input', {
    name: 'secret_name',
    required: true,
    value: reference?.secret_name ?? '',
    readonly: reference ? true : undefined,
  });
  const kind = h(
    'select',
    { name: 'ref_kind' },
    ['env', 'secrets_manager'].map((value) =>
      h('option', { value, selected: reference?.ref_kind === value }, value),
    ),
  );
  const value = h('input', {
    name: 'ref_value',
    value: reference?.ref_value ?? '',
    placeholder: 'ETP_SECRET_… or arn:aws:secretsmanager:…',
  });
  const notes = h('textarea', { name: 'notes', rows: 2 }, reference?.notes ?? '');
  const problem = h('p', { class: 'error', role: 'alert' });
  return h(
    'form',
    {
      'aria-label': reference ? `Change ${reference.secret_name}` : 'Seed a secret reference',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await api('PUT', `${tenantPath(state.tenant)}/secrets/${encodeURIComponent(name.value.trim())}`, {
            ref_kind: kind.value,
            ref_value: value.value.trim(),
            notes: notes.value,
          });
          say(`Saved ${name.value}`);
          refresh();
        } catch (err) {
          problem.textContent = err.message;
        }
      },
    },
    field('Secret name', name),
    field('Kind', kind),
    field('Environment variable or secret ARN (never the secret itself)', value),
    field('Notes', notes),
    h('button', { type: 'submit' }, reference ? 'Save changes' : 'Seed reference'),
    problem,
  );
}

function tagCell(reference) {
  if (!reference.tags) return reference.ref_kind === 'env' ? 'local runs only' : '';
  const words = {
    tagged: 'tenant tags present',
    untagged: 'tenant tags missing',
    other: 'tagged for another tenant',
    unknown: 'could not check',
  };
  return h(
    'span',
    { class: `badge ${reference.tags.status === 'tagged' ? 'ok' : 'bad'}` },
    words[reference.tags.status] ?? reference.tags.status,
    reference.tags.detail ? ` (${reference.tags.detail})` : '',
  );
}

async function secretsPage() {
  const { references } = await api('GET', `${tenantPath(state.tenant)}/secrets`);
  const editor = h('div', {}, secretForm(undefined, secretsPage));
  page(
    `Secret references of ${state.tenant}`,
    h(
      'p',
      {},
      'Where each secret lives: an environment variable name or a Secrets Manager ARN. Values are never read or shown.',
    ),
    table(
      'References',
      ['Secret name', 'Kind', 'Reference', 'Notes', 'Tenant tags', 'Updated', 'Actions'],
      references.map((reference) => [
        reference.secret_name,
        reference.ref_kind,
        h('code', {}, reference.ref_value),
        reference.notes ?? '',
        tagCell(reference),
        reference.updated_at ?? '',
        h(
          'span',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Change ${reference.secret_name}`,
              onclick: () => editor.replaceChildren(secretForm(reference, secretsPage)),
            },
            'Change',
          ),
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Delete ${reference.secret_name}`,
              onclick: async () => {
                await api(
                  'DELETE',
                  `${tenantPath(state.tenant)}/secrets/${encodeURIComponent(reference.secret_name)}`,
                );
                say(`Deleted ${reference.secret_name}`);
                await secretsPage();
              },
            },
            'Delete',
          ),
        ),
      ]),
    ),
    h('h2', {}, 'Seed or change'),
    editor,
  );
}

// ---- Runs

function runLink(run, kind = 'run') {
  return h(
    'a',
    { href: `#/${kind}/${run.tenant}/${run.scenario}/${run.runId}` },
    kind === 'run' ? run.runId : 'live',
  );
}

function startForm() {
  const scenario = h(
    'select',
    { name: 'scenario' },
    state.catalog.scenarios.map((s) => h('option', { value: s.name }, s.name)),
  );
  const input = h('textarea', { name: 'input', rows: 3 }, '{}');
  const problem = h('p', { class: 'error', role: 'alert' });
  return h(
    'form',
    {
      'aria-label': 'Start a run',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const started = await api('POST', `${tenantPath(state.tenant)}/runs`, {
            scenario: scenario.value,
            input: JSON.parse(input.value || '{}'),
          });
          location.hash = `#/live/${started.tenant}/${started.scenario}/${started.runId}`;
        } catch (err) {
          problem.textContent = err.message;
        }
      },
    },
    field('Scenario', scenario),
    field('Input (JSON; the scenario’s defaults fill the rest)', input),
    h('button', { type: 'submit' }, 'Start run'),
    problem,
  );
}

async function runsPage() {
  const { runs } = await api('GET', `${tenantPath(state.tenant)}/runs`);
  const scenarios = [...new Set(runs.map((run) => run.scenario))].sort();
  page(
    `Runs of ${state.tenant}`,
    state.session.canStartRuns
      ? startForm()
      : h('p', {}, 'Runs start with etp scenario start or on their schedule.'),
    scenarios.length === 0 ? h('p', {}, 'No runs yet.') : null,
    scenarios.map((scenario) =>
      table(
        `${scenario}, newest first`,
        ['Run', 'Outcome', 'Started', 'Ended', 'Estimated cost', 'Events'],
        runs
          .filter((run) => run.scenario === scenario)
          .map((run) => [
            runLink(run),
            h('span', { class: `badge ${run.outcome === 'succeeded' ? 'ok' : 'bad'}` }, run.outcome),
            run.startedAt ?? '',
            run.endedAt ?? '',
            usd(run.totalUsd),
            runLink(run, 'live'),
          ]),
      ),
    ),
  );
}

function levelRows(summary) {
  return summary.levels.map((level) => [
    level.name,
    level.kind,
    h('span', { class: `badge ${level.hasResult ? 'ok' : 'bad'}` }, level.outcome),
    `${level.calls.filter((c) => c.ok).length} ok, ${level.calls.filter((c) => !c.ok).length} failed`,
    `${level.calls.reduce((sum, call) => sum + call.durationMs, 0)} ms`,
    level.inputTokens === undefined ? '' : `${level.inputTokens} in / ${level.outputTokens} out`,
    level.summary,
  ]);
}

async function runPage(tenant, scenario, runId) {
  const run = await api('GET', `${tenantPath(tenant)}/runs/${scenario}/${runId}`);
  const viewer = h('pre', { 'aria-label': 'File content', tabindex: '0', hidden: true });
  const openFile = async (path) => {
    const file = await api(
      'GET',
      `${tenantPath(tenant)}/runs/${scenario}/${runId}/file?path=${encodeURIComponent(path)}`,
    );
    viewer.hidden = false;
    viewer.textContent = file.content;
    viewer.focus();
  };
  const summary = run.summary;
  page(
    `Run ${runId}`,
    h(
      'p',
      {},
      `${scenario} for tenant ${tenant}: `,
      summary ? h('strong', {}, summary.outcome) : 'running',
      summary ? ` (${summary.startedAt ?? ''} → ${summary.endedAt})` : '',
      ' · ',
      runLink({ tenant, scenario, runId }, 'live'),
    ),
    summary
      ? table(
          'Levels',
          ['Level', 'Kind', 'Outcome', 'Calls', 'Duration', 'Tokens', 'Summary'],
          levelRows(summary),
        )
      : null,
    summary
      ? table(
          `Estimated cost: ${usd(summary.cost.totalUsd)}`,
          ['Part', 'Quantity', 'Unit', 'USD'],
          summary.cost.parts.map((part) => [part.part, part.quantity, part.unit, usd(part.usd)]),
        )
      : null,
    Object.entries(run.findings).map(([level, findings]) =>
      table(
        `Findings of ${level}`,
        ['Status', 'Severity', 'Title', 'Resource', 'Region', 'Tool', 'Monthly cost'],
        findings.map((f) => [
          h('span', { class: `badge ${f.status}` }, f.status),
          f.severity,
          f.title,
          h('code', {}, f.resource),
          f.region,
          f.tool,
          usd(f.monthlyCostUsd),
        ]),
      ),
    ),
    Object.entries(run.reports).map(([level, text]) => [
      h('h2', {}, `Report (${level})`),
      h('pre', { tabindex: '0' }, text),
    ]),
    h('h2', {}, 'Workspace files'),
    h(
      'ul',
      {},
      run.files.map((file) =>
        h(
          'li',
          {},
          h('button', { type: 'button', class: 'secondary', onclick: () => openFile(file.path) }, file.path),
          ` ${file.bytes} bytes`,
        ),
      ),
    ),
    viewer,
  );
}

// ---- A live run

function answerForm(tenant, runId, onDone) {
  const text = h('textarea', { name: 'answer', rows: 2, required: true });
  const problem = h('p', { class: 'error', role: 'alert' });
  return h(
    'form',
    {
      'aria-label': `Answer the question of ${runId}`,
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await api('POST', `${tenantPath(tenant)}/questions/${runId}/answer`, { text: text.value });
          say(`Answered ${runId}: the run resumes`);
          onDone();
        } catch (err) {
          problem.textContent = err.message;
        }
      },
    },
    field('Your answer', text),
    h('button', { type: 'submit' }, 'Send answer'),
    problem,
  );
}

function eventItem(event, context) {
  switch (event.type) {
    case 'level_started':
      return h('li', {}, h('strong', {}, `Level ${event.level}`), ` started (${event.kind})`);
    case 'call':
      return h(
        'li',
        {},
        h(
          'span',
          { class: `badge ${event.ok ? 'ok' : 'failed'}` },
          event.ok ? 'ok' : (event.code ?? 'failed'),
        ),
        ` ${event.callId} ${event.tool} (${event.durationMs} ms): ${event.summary}`,
      );
    case 'turn':
      return h(
        'li',
        {},
        h('strong', {}, `Model turn ${event.turn}`),
        event.text ? `: ${event.text}` : '',
        event.toolUses.map((use) =>
          h('div', {}, '→ ', h('code', {}, use.name), ' ', h('code', {}, JSON.stringify(use.input))),
        ),
      );
    case 'question':
      return h(
        'li',
        {},
        h('strong', {}, 'Question: '),
        event.question,
        context.answerable ? answerForm(context.tenant, context.runId, () => {}) : null,
      );
    case 'answer':
      return h('li', {}, event.answered ? 'Answered: the run resumes' : 'No answer: the run goes on');
    case 'level_ended':
      return h(
        'li',
        {},
        h('strong', {}, `Level ${event.level}`),
        ` ended: ${event.outcome}. ${event.summary}`,
      );
    case 'summary':
      return h(
        'li',
        {},
        h('strong', {}, `Run ${event.summary.outcome}`),
        ` · estimated cost ${usd(event.summary.cost.totalUsd)} · `,
        h('a', { href: `#/run/${context.tenant}/${context.scenario}/${context.runId}` }, 'the run’s page'),
      );
    case 'run_failed':
      return h('li', { class: 'error' }, `The run failed: ${event.message}`);
    default:
      return h('li', {}, event.type);
  }
}

async function livePage(tenant, scenario, runId) {
  const log = h('ol', { class: 'live' });
  page(
    `Live: ${runId}`,
    h('p', {}, `${scenario} for tenant ${tenant}`),
    h('div', { role: 'log', 'aria-label': 'Run events' }, log),
  );
  let next = 0;
  const poll = async () => {
    if (!log.isConnected) return;
    const { events, next: after } = await api(
      'GET',
      `${tenantPath(tenant)}/runs/${scenario}/${runId}/events?after=${next}`,
    );
    next = after;
    let done = false;
    for (const [index, event] of events.entries()) {
      const answered = events.slice(index + 1).some((later) => later.type === 'answer');
      log.append(
        eventItem(event, { tenant, scenario, runId, answerable: event.type === 'question' && !answered }),
      );
      if (event.type === 'answer') for (const form of log.querySelectorAll('form')) form.remove();
      done ||= event.type === 'summary' || event.type === 'run_failed';
    }
    if (!done) state.timer = setTimeout(() => poll().catch((err) => say(err.message)), 400);
  };
  await poll();
}

// ---- Questions

async function questionsPage() {
  const { questions } = await api('GET', `${tenantPath(state.tenant)}/questions`);
  page(
    `Open questions of ${state.tenant}`,
    questions.length === 0 ? h('p', {}, 'No open questions.') : null,
    questions.map((q) =>
      h(
        'section',
        { 'aria-label': `Question of ${q.runId}` },
        h(
          'h2',
          {},
          `${q.scenario} · ${q.level} · `,
          h('a', { href: `#/live/${q.tenant}/${q.scenario}/${q.runId}` }, q.runId),
        ),
        h('p', {}, q.question),
        h('p', {}, `Asked ${q.askedAt ?? ''}; no answer after ${q.expiresAt ?? ''}`),
        answerForm(q.tenant, q.runId, questionsPage),
      ),
    ),
  );
}

// ---- Tools

async function toolsPage() {
  const { tools, scenarios } = state.catalog;
  const hasPins = scenarios.some((s) => s.levels.some((level) => level.pins));
  page(
    'Tools',
    table(
      'Catalog',
      ['Tool', 'Side effects', 'IAM actions', 'Secrets', 'Schema'],
      tools.map((tool) => [
        h(
          'span',
          {},
          h('strong', {}, tool.name),
          tool.fileTool ? ' (file tool, always allowed)' : '',
          h('br'),
          tool.description,
        ),
        tool.sideEffects,
        tool.iam.flatMap((grant) => grant.actions).join(', '),
        tool.requiresSecrets.join(', '),
        h(
          'details',
          {},
          h('summary', {}, `Input schema of ${tool.name}`),
          h('pre', {}, JSON.stringify(tool.inputSchema, null, 2)),
        ),
      ]),
    ),
    scenarios.map((scenario) =>
      table(
        `${scenario.name}: what each level may call`,
        ['Level', 'Kind', 'May call', ...(hasPins ? ['Pinned arguments'] : [])],
        scenario.levels.map((level) => [
          level.name,
          level.kind + (level.askUser ? ' (may ask a person)' : ''),
          [...level.tools, 'file tools'].join(', '),
          ...(hasPins ? [level.pins ? h('pre', {}, JSON.stringify(level.pins, null, 2)) : ''] : []),
        ]),
      ),
    ),
  );
}

// ---- Router

const ROUTES = [
  [/^#\/secrets$/, secretsPage],
  [/^#\/runs$/, runsPage],
  [/^#\/run\/([^/]+)\/([^/]+)\/([^/]+)$/, runPage],
  [/^#\/live\/([^/]+)\/([^/]+)\/([^/]+)$/, livePage],
  [/^#\/questions$/, questionsPage],
  [/^#\/tools$/, toolsPage],
];

async function route() {
  clearTimeout(state.timer);
  const hash = location.hash || '#/runs';
  for (const link of document.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === hash.split('/').slice(0, 2).join('/'))
      link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  for (const [pattern, render] of ROUTES) {
    const match = pattern.exec(hash);
    if (!match) continue;
    try {
      await render(...match.slice(1).map(decodeURIComponent));
    } catch (err) {
      page('Something went wrong', h('p', { class: 'error' }, err.message));
    }
    return;
  }
  page('Not found', h('p', {}, 'No such page.'));
}

async function start() {
  const config = await (await fetch('/config.json')).json();
  if (config.auth === 'cognito') state.token = await signIn(config);
  state.session = await api('GET', '/api/session');
  state.catalog = await api('GET', '/api/catalog');
  document.getElementById('who').textContent = `${state.session.user} · ${state.session.mode}`;
  state.tenant = state.session.tenants[0];
  tenantSelect.replaceChildren(
    ...state.session.tenants.map((tenant) => h('option', { value: tenant }, tenant)),
  );
  tenantSelect.addEventListener('change', () => {
    state.tenant = tenantSelect.value;
    state.moved = true;
    void route();
  });
  window.addEventListener('hashchange', () => {
    state.moved = true;
    void route();
  });
  if (!state.tenant)
    return page('No tenant', h('p', {}, 'Your groups name no tenant: ask for a tenant-<id> group.'));
  await route();
}

start().catch((err) => page('The console could not start', h('p', { class: 'error' }, err.message)));
