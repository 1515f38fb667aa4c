// What every page uses: elements from the API's data as text nodes only (`h()` never parses HTML),
// the page frame, tables, labelled fields, the API client and the console's state.

export const main = document.getElementById('main');
export const status = document.getElementById('status');
export const tenantSelect = document.getElementById('tenant');
export const state = {
  session: undefined,
  tenant: undefined,
  token: undefined,
  catalog: undefined,
  timer: undefined,
};

/** An element with attributes (`on…` functions become listeners) and children (strings become text). */
export function h(tag, attrs, ...children) {
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
export function field(text, control) {
  fieldCount += 1;
  control.id = `field-${fieldCount}`;
  return h('div', { class: 'field' }, h('label', { for: control.id }, text), control);
}

export function say(text) {
  status.textContent = text;
}

export function page(title, ...children) {
  const heading = h('h1', { tabindex: '-1' }, title);
  main.replaceChildren(heading, h('div', {}, children));
  document.title = `${title} · External Tools Platform console`;
  // After a move within the console, focus goes to the new page's heading; on first load it stays at the
  // document's start, so the first Tab reaches the skip link.
  if (state.moved) heading.focus();
}

export function table(caption, headers, rows) {
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

export const usd = (value) => (typeof value === 'number' ? `$${value.toFixed(value < 0.01 ? 6 : 4)}` : '');
export const tenantPath = (tenant) => `/api/tenants/${encodeURIComponent(tenant)}`;

export async function api(method, path, body) {
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
