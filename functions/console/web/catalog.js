// The open questions and the tools pages.
import { api, h, page, state, table, tenantPath } from './dom.js';
import { answerForm } from './live.js';

export async function questionsPage() {
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

export async function toolsPage() {
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
