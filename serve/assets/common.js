// Helpers shared by the dashboard pages. Everything from a run is untrusted text: it is only
// ever put into the page with textContent, never as HTML.
'use strict';

const tv = {
  /** Fetches a JSON document; throws an Error with the server's reason on a non-2xx answer. */
  async getJSON(url) {
    const res = await fetch(url, { cache: 'no-store' });
    let body = null;
    try { body = await res.json(); } catch (e) { body = null; }
    if (!res.ok) throw new Error((body && body.error) || `${url}: HTTP ${res.status}`);
    return body;
  },

  /** Creates an element with text content and attributes. */
  el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  },

  /** Replaces the rows of a table body; each row is a list of cells (text or element). */
  fillTable(tbody, rows, numericFrom) {
    tbody.replaceChildren(...rows.map((cells) => {
      const tr = document.createElement('tr');
      cells.forEach((c, i) => {
        const td = document.createElement('td');
        if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? '-' : String(c);
        if (numericFrom !== undefined && i >= numericFrom) td.className = 'num';
        tr.appendChild(td);
      });
      return tr;
    }));
  },

  speedup(v) { return typeof v === 'number' ? `${v.toFixed(3)}x` : '-'; },
  percent(v) { return typeof v === 'number' ? `${(100 * v).toFixed(1)}%` : '-'; },
  count(v) { return typeof v === 'number' ? v.toLocaleString('en-US') : '-'; },
  /** A difference in points of the oracle, signed: "+0.42 pts". */
  points(v) { return typeof v === 'number' ? `${v >= 0 ? '+' : ''}${v.toFixed(2)} pts` : '-'; },
  /** A difference of two fractions of the oracle in points, with its standard error (also a
   * fraction; omitted when not a number): "+2.56 ± 0.41 pts". */
  pointsSe(v, se) {
    if (typeof v !== 'number') return '-';
    const p = tv.points(100 * v);
    // No break inside the figure (a narrow column wraps between whole figures only).
    return typeof se === 'number' ? p.replace(' pts', `\u00a0±\u00a0${(100 * se).toFixed(2)}\u00a0pts`) : p;
  },
  age(s) {
    if (typeof s !== 'number') return '-';
    if (s < 60) return `${Math.max(0, Math.round(s))} s ago`;
    if (s < 3600) return `${Math.round(s / 60)} min ago`;
    if (s < 86400) return `${Math.round(s / 3600)} h ago`;
    return `${Math.round(s / 86400)} d ago`;
  },

  /** A status badge element. */
  badge(status) { return tv.el('span', status, { class: `badge ${status}` }); },

  /** Calls `f` now and then again after `ms` milliseconds (a number or a function giving
   * one), one call at a time. */
  poll(f, ms) {
    const tick = async () => {
      try { await f(); } catch (e) { console.error(e); }
      setTimeout(tick, typeof ms === 'function' ? ms() : ms);
    };
    tick();
  },
};
