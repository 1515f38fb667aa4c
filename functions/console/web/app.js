// The console page: plain DOM, no framework and no build step (a framework would
// be most of the first load for a few small pages). Every text from the API goes
// in as a text node (`h()` never parses HTML), so a finding's resource name, a
// Slack text or a tenant's notes always render as text. Hash routes: #/secrets,
// #/runs, #/run/<tenant>/<scenario>/<runId>, #/live/<tenant>/<scenario>/<runId>,
// #/questions, #/tools.
import { questionsPage, toolsPage } from './catalog.js';
import { api, h, page, state, tenantSelect } from './dom.js';
import { livePage } from './live.js';
import { runPage, runsPage } from './runs.js';
import { secretsPage } from './secrets.js';
import { signIn } from './sign-in.js';

const ROUTES = [
  [/^#\/secrets$/, secretsPage],
  [/^#\/runs$/, runsPage],
  [/^#\/run\/([^/]+)\/([^/]+)\/([^/]+)$/, runPage],
  [/^#\/live\/([^/]+)\/([^/]+)\/([^/]+)$/, livePage],
  [/^#\/questions$/, questionsPage],
  [/^#\/tools$/, toolsPage],
];

async function render() {
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

let routing = Promise.resolve();

/**
 * Renders the page of the current hash, after any render under way: renders never
 * interleave, so the last one (the current hash, the current tenant) is what stays.
 */
function route() {
  routing = routing.then(render);
  return routing;
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
