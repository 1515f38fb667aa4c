// The runs page (per scenario, newest first; locally, start a run) and one run's page.
import { api, field, h, page, say, state, table, tenantPath, usd } from './dom.js';

export function runLink(run, kind = 'run') {
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

/** The runs page: the newest runs, and the older ones a page at a time (the API's `next` cursor). */
export async function runsPage() {
  const tenant = state.tenant;
  const first = await api('GET', `${tenantPath(tenant)}/runs`);
  showRuns(tenant, first.runs, first.next);
}

function showRuns(tenant, runs, next) {
  const older = async () => {
    try {
      const more = await api('GET', `${tenantPath(tenant)}/runs?before=${encodeURIComponent(next)}`);
      if (state.tenant === tenant && location.hash.startsWith('#/runs')) {
        showRuns(tenant, [...runs, ...more.runs], more.next);
      }
    } catch (err) {
      say(err.message);
    }
  };
  const scenarios = [...new Set(runs.map((run) => run.scenario))].sort();
  page(
    `Runs of ${tenant}`,
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
    next
      ? h(
          'p',
          {},
          `${runs.length} runs shown. `,
          h('button', { type: 'button', class: 'secondary', onclick: older }, 'Older runs'),
        )
      : null,
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

export async function runPage(tenant, scenario, runId) {
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
    run.filesTruncated
      ? h('p', {}, `The first ${run.files.length} files in path order; the workspace holds more.`)
      : null,
    viewer,
  );
}
