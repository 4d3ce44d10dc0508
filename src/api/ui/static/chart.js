// The fleet tab's one-day chart (issue 26 point 1): connected minions as a line and the jobs
// started each hour as stacked bars by outcome, from GET /fleet/history. Built as SVG elements
// with DOM calls (no chart library, no markup parsed); each bar has a <title> for hovering.
import { el, fill } from './dom.js';

// an XML namespace name, an identifier: nothing is fetched from it
const NS = 'http://www.w3.org/2000/svg';
const W = 720;
const H = 170;
const PAD = { left: 34, right: 34, top: 10, bottom: 22 };
const KINDS = ['ok', 'failed', 'partial', 'running'];

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

function hour(ms) {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:00`;
}

/** Draws `history` into `box`; returns the totals shown (for the text line under it). */
export function drawHistory(box, history) {
  const span = history.until - history.since;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (t) => PAD.left + ((t - history.since) / span) * plotW;
  const jobsMax = Math.max(1, ...history.jobs.map((b) => KINDS.reduce((n, k) => n + b[k], 0)));
  const minionsMax = Math.max(1, ...history.connected.map((p) => Math.max(p.connected, p.known)));
  const parts = [svg('rect', { class: 'plot', x: PAD.left, y: PAD.top, width: plotW, height: plotH })];

  const totals = { ok: 0, failed: 0, partial: 0, running: 0 };
  const barW = Math.max(2, (history.bucketMs / span) * plotW - 2);
  for (const b of history.jobs) {
    let y = PAD.top + plotH;
    for (const k of KINDS) {
      totals[k] += b[k];
      if (b[k] === 0) continue;
      const h = (b[k] / jobsMax) * plotH;
      y -= h;
      const left = Math.max(PAD.left, x(b.at) + 1);
      parts.push(svg('rect', { class: `bar bar-${k}`, 'data-count': b[k], x: left, y, width: barW, height: h }, svg('title', {}, `${hour(b.at)}: ${b[k]} ${k}`)));
    }
  }
  // the connected line, a step at each sample; the last point is now
  const pts = history.connected.filter((p) => p.at >= history.since);
  if (pts.length > 0) {
    const y = (n) => PAD.top + plotH - (n / minionsMax) * plotH;
    const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.at).toFixed(1)},${y(p.connected).toFixed(1)}`).join(' ');
    parts.push(svg('path', { class: 'connected-line', d }));
    const last = pts[pts.length - 1];
    parts.push(svg('circle', { class: 'connected-now', cx: x(last.at), cy: y(last.connected), r: 3, 'data-connected': last.connected }, svg('title', {}, `${last.connected} connected now`)));
  }
  // axes: minions on the left, jobs on the right, a time label every 6 hours
  parts.push(svg('text', { class: 'axis', x: PAD.left - 4, y: PAD.top + 10, 'text-anchor': 'end' }, String(minionsMax)));
  parts.push(svg('text', { class: 'axis', x: PAD.left - 4, y: PAD.top + plotH, 'text-anchor': 'end' }, '0'));
  parts.push(svg('text', { class: 'axis jobs', x: W - PAD.right + 4, y: PAD.top + 10 }, String(jobsMax)));
  for (let t = history.until; t > history.since; t -= 6 * 3_600_000) {
    parts.push(svg('text', { class: 'axis', x: x(t), y: H - 6, 'text-anchor': 'middle' }, t === history.until ? 'now' : hour(t)));
  }
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'connected minions and jobs over the last day' }, ...parts);
  fill(box, [chart]);
  return { totals, connectedNow: pts.length > 0 ? pts[pts.length - 1].connected : 0 };
}

/** The text under the chart, for screen readers and the test. */
export function historyText(shown) {
  const t = shown.totals;
  return el('span', {}, `${shown.connectedNow} connected now; jobs in the last day: ${t.ok} ok, ${t.failed} failed, ${t.partial} partial, ${t.running} running`);
}
