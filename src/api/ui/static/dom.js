// DOM helpers for the web view. Text from minions, users or the API only ever becomes a text
// node (textContent / createTextNode): nothing here parses HTML, so an ID, grain or return
// holding <script> or <img onerror> shows literally.

/** el('td', {className: 'x', title: t}, child, 'text', ...): children are nodes or plain text. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue;
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'onclick') node.addEventListener('click', v);
    else if (k === 'className' || k === 'title' || k === 'type' || k === 'disabled' || k === 'hidden') node[k] = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null) continue;
    node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return node;
}

export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}

/** IDs in natural order (emu-2 before emu-10), as an operator reads them. */
export const byName = new Intl.Collator(undefined, { numeric: true }).compare;

/** Replaces a node's children. */
export function fill(node, children) {
  node.replaceChildren(...children);
}

/** A value as readable text: strings as they are, the rest as indented JSON. */
export function show(value) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

export function ago(ms) {
  if (typeof ms !== 'number') return '';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function when(ms) {
  if (typeof ms !== 'number') return '';
  return new Date(ms).toLocaleString();
}

/** Asks in the page's modal dialog; resolves true on Confirm. rows: [[label, value], ...]. */
export function confirmDialog(title, rows, okLabel = 'Confirm') {
  const dialog = byId('confirm');
  byId('confirm-title').textContent = title;
  fill(
    byId('confirm-body'),
    rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]),
  );
  const ok = byId('confirm-ok');
  const cancel = byId('confirm-cancel');
  ok.textContent = okLabel;
  return new Promise((resolve) => {
    const done = (answer) => {
      ok.removeEventListener('click', onOk);
      cancel.removeEventListener('click', onCancel);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onOk = () => done(true);
    const onCancel = () => done(false);
    ok.addEventListener('click', onOk);
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener('cancel', onCancel);
    dialog.showModal();
    cancel.focus();
  });
}

/**
 * A paged view of a list: render(items on this page) fills the table body, the pager shows
 * "1-100 of 10000" with previous/next. Only one page of rows is ever in the DOM, so 10,000
 * minions cost the same to draw as 100.
 */
export class Pager {
  constructor(pagerNode, onChange, pageSize = 100) {
    this.node = pagerNode;
    this.onChange = onChange;
    this.pageSize = pageSize;
    this.page = 0;
    this.total = 0;
  }

  /** The slice of items on the current page (clamps the page to the list). */
  slice(items) {
    this.total = items.length;
    const pages = Math.max(1, Math.ceil(this.total / this.pageSize));
    if (this.page >= pages) this.page = pages - 1;
    const start = this.page * this.pageSize;
    this.draw(start, Math.min(start + this.pageSize, this.total), pages);
    return items.slice(start, start + this.pageSize);
  }

  reset() {
    this.page = 0;
  }

  draw(start, end, pages) {
    const go = (p) => () => {
      this.page = p;
      this.onChange();
    };
    fill(this.node, [
      el('button', { className: 'prev', disabled: this.page === 0, onclick: go(this.page - 1) }, '\u2039 Previous'),
      el('span', { className: 'range' }, this.total === 0 ? 'none' : `${start + 1}\u2013${end} of ${this.total}`),
      el('button', { className: 'next', disabled: this.page >= pages - 1, onclick: go(this.page + 1) }, 'Next \u203a'),
    ]);
  }
}
