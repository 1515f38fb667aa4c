// A run as it happens, polled, ending with its summary; and the answer form the questions page shares.
import { api, field, h, page, say, state, tenantPath, usd } from './dom.js';

// How often the page asks for new events, in ms. Deployed, each poll reads the execution's
// history (GetExecutionHistory), a throttled Step Functions API shared with the whole account.
const POLL_MS = { local: 400, deployed: 2000 };

export function answerForm(tenant, runId, onDone) {
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

export async function livePage(tenant, scenario, runId) {
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
    if (!done && log.isConnected)
      state.timer = setTimeout(
        () => poll().catch((err) => say(err.message)),
        POLL_MS[state.session.mode] ?? 2000,
      );
  };
  await poll();
}
