// The secret references page: list, seed, change, delete; the tenant tags of Secrets Manager secrets.
import { api, field, h, page, say, state, table, tenantPath } from './dom.js';

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

export async function secretsPage() {
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
