// One run's page: polls /api/runs/NAME (and its per_shape part when it changes) and redraws.
// Charts are Chart.js (Debian's libjs-chart.js, served by tilevolve from the installed file).
'use strict';

const runName = decodeURIComponent(location.pathname.split('/')[2] || '');
const pollMs = Math.max(200, Number(new URLSearchParams(location.search).get('poll')) || 1000);
const page = { updates: 0, charts: {}, metric: 'speedup', last: null, perShape: null, perShapeVersion: -1 };
window.tvDashboard = page;

const colors = {
  train: '#1f6feb', test: '#d9480f', best: '#1f6feb', expert: '#868e96', best_single: '#2b8a3e',
  per_m_table: '#9c36b5', tree: '#c2255c', vendor: '#e67700', oracle: '#212529', vendorBar: '#fab005',
};
const methodNames = {
  best: 'best program', expert: 'expert', best_single: 'best single config',
  per_m_table: 'per-M table', tree: 'decision tree', vendor: 'vendor library', oracle: 'per-shape oracle',
};
/** The per-shape view's methods, in the order of its charts and table columns. */
const shapeMethods = ['best', 'best_single', 'per_m_table', 'tree', 'vendor', 'oracle'];
const stageNames = [
  ['mutator_failed', 'mutator failed'], ['diff_failed', 'diff failed'], ['parse_failed', 'parse failed'],
  ['noop', 'no-op'], ['static_reject', 'static check'], ['probe_reject', 'probe shapes'],
  ['race_reject', 'racing'],
  ['timing_failed', 'timing failed'], ['over_budget', 'over the kernel-run budget'],
  ['full', 'fully evaluated'],
];

Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.family = 'system-ui, sans-serif';

function makeChart(id, config) {
  const chart = new Chart(document.getElementById(id), config);
  page.charts[id] = chart;
  return chart;
}

function setupCharts() {
  makeChart('chart-progress', {
    type: 'line',
    data: { datasets: [
      { label: 'best train', data: [], borderColor: colors.train, backgroundColor: colors.train, stepped: true, pointRadius: 3 },
      { label: 'its test (held out)', data: [], borderColor: colors.test, backgroundColor: colors.test, stepped: true, pointRadius: 3, borderDash: [6, 3] },
    ] },
    options: {
      parsing: false,
      scales: { x: { type: 'linear', title: { display: true, text: 'programs proposed' }, min: 0 },
        y: { title: { display: true, text: 'speedup over the expert' } } },
      plugins: { tooltip: { callbacks: { footer: (items) => items.length && items[0].raw.op ? `#${items[0].raw.id} by ${items[0].raw.op}` : '' } } },
    },
  });
  makeChart('chart-cascade', {
    type: 'bar',
    data: { labels: stageNames.map((s) => s[1]), datasets: [{ label: 'programs', data: [], backgroundColor: '#4c6ef5' }] },
    options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true } } },
  });
  makeChart('chart-operators', {
    type: 'bar',
    data: { labels: [], datasets: [
      { label: 'better than parent', data: [], backgroundColor: '#2b8a3e' },
      { label: 'fully evaluated', data: [], backgroundColor: '#adb5bd' },
    ] },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: '% of proposals' } } } },
  });
  for (const half of ['train', 'test']) {
    makeChart(`chart-shapes-${half}`, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        scales: { x: { ticks: { autoSkip: true, maxRotation: 60 } },
          y: { beginAtZero: true, title: { display: true, text: 'speedup over the expert' } } },
        plugins: {
          tooltip: { callbacks: { afterLabel: (item) => shapeTooltip(half, item) } },
          // The best program's bars are amber where it calls the vendor library: keep its legend blue.
          legend: { labels: { generateLabels: (chart) => Chart.defaults.plugins.legend.labels.generateLabels(chart)
            .map((l) => (chart.data.datasets[l.datasetIndex].methodKey === 'best'
              ? { ...l, fillStyle: colors.best, strokeStyle: colors.best } : l)) } },
        },
      },
    });
  }
  makeChart('chart-lineage', {
    type: 'line',
    data: { labels: [], datasets: [{ label: 'train speedup along the ancestry', data: [], borderColor: colors.train, backgroundColor: colors.train, pointRadius: 4 }] },
    options: { scales: { y: { title: { display: true, text: 'train speedup over the expert' } } } },
  });
  document.getElementById('metric-speedup').addEventListener('click', () => setMetric('speedup'));
  document.getElementById('metric-oracle').addEventListener('click', () => setMetric('oracle'));
}

function setMetric(m) {
  page.metric = m;
  document.getElementById('metric-speedup').classList.toggle('on', m === 'speedup');
  document.getElementById('metric-oracle').classList.toggle('on', m === 'oracle');
  if (page.last) drawProgress(page.last);
}

function setText(id, text) { document.getElementById(id).textContent = text; }

function drawProgress(s) {
  const chart = page.charts['chart-progress'];
  const oracle = page.metric === 'oracle';
  const key = (half) => (oracle ? `${half}_of_oracle` : half);
  const scale = oracle ? 100 : 1;
  const series = (half) => {
    const pts = s.improvements.filter((p) => typeof p[key(half)] === 'number')
      .map((p) => ({ x: p.n, y: scale * p[key(half)], id: p.id, op: p.op }));
    // The best so far holds until now.
    if (pts.length && s.programs > pts[pts.length - 1].x) pts.push({ x: s.programs, y: pts[pts.length - 1].y });
    return pts;
  };
  chart.data.datasets[0].data = series('train');
  chart.data.datasets[1].data = series('test');
  chart.options.scales.y.title.text = oracle ? '% of the per-shape oracle' : 'speedup over the expert';
  chart.options.scales.x.max = Math.max(s.programs, s.budget || 0, 1);
  chart.update('none');
}

function drawCounters(s) {
  const c = s.counters;
  const chart = page.charts['chart-cascade'];
  chart.data.datasets[0].data = stageNames.map(([k]) => c.stages[k] || 0);
  chart.update('none');
  const rows = [
    ['programs proposed', tv.count(c.proposed)],
    ['fully evaluated', tv.count(c.full)],
    ['better than their parent', tv.count(c.improved)],
    ['new bests', tv.count(c.new_best)],
    ['kernel runs (timed shape x config pairs)', tv.count(c.kernel_runs)],
    ['cache hits', tv.count(c.cache_hits)],
    ['exhaustive tuning of the training shapes', tv.count(c.exhaustive_train_runs)],
  ];
  for (const [reason, n] of Object.entries(c.static_reasons || {})) rows.push([`static check: ${reason}`, tv.count(n)]);
  tv.fillTable(document.querySelector('#counters tbody'), rows, 1);
}

function drawOperators(s) {
  const ops = s.operators;
  const chart = page.charts['chart-operators'];
  chart.data.labels = ops.map((o) => o.op);
  chart.data.datasets[0].data = ops.map((o) => (o.proposed ? (100 * o.improved) / o.proposed : 0));
  chart.data.datasets[1].data = ops.map((o) => (o.proposed ? (100 * o.full) / o.proposed : 0));
  chart.update('none');
  tv.fillTable(document.querySelector('#operators tbody'), ops.map((o) => [
    o.op, tv.count(o.proposed), tv.count(o.full), tv.count(o.improved), tv.count(o.new_best), tv.percent(o.success),
  ]), 1);
}

function drawBest(s) {
  const b = s.best || {};
  setText('best-program', b.program || '(not known yet: this run does not write its best program until it ends)');
  setText('best-simplified', b.simplified || '-');
  setText('simplify-note', b.note || 'Same config for every shape as the program on the left.');
  setText('rules', typeof b.rules === 'number' ? `(${b.rules} rules)` : '');
  setText('simplified-rules', typeof b.simplified_rules === 'number' ? `(${b.simplified_rules} rules)` : '');
  setText('best-source', b.source ? `from ${b.source}` : '');
  const diff = document.getElementById('best-diff');
  if (!b.diff || !b.diff.length) {
    diff.textContent = s.expert ? '-' : '(the expert\'s text is not in this run\'s config.json)';
  } else {
    diff.replaceChildren(...b.diff.map((l) => tv.el('span', `${l.kind} ${l.text}\n`, {
      class: l.kind === '+' ? 'add' : l.kind === '-' ? 'del' : 'same' })));
  }
}

function drawLineage(s) {
  const chain = s.lineage;
  const chart = page.charts['chart-lineage'];
  chart.data.labels = chain.map((n) => `#${n.id} ${n.op}`);
  chart.data.datasets[0].data = chain.map((n) => n.train);
  chart.update('none');
  document.getElementById('lineage').replaceChildren(...chain.map((n) => tv.el('li',
    `#${n.id} by ${n.op} at program ${n.n}: train ${tv.speedup(n.train)}`)));
}

/** A measured run's devices and poison pairs (absent from other runs). */
function drawDevices(s) {
  const dv = s.devices;
  const section = document.getElementById('devices-section');
  section.hidden = !dv;
  if (!dv) return;
  const alive = dv.devices.filter((d) => d.state === 'alive').length;
  setText('devices-note', `(${alive} of ${dv.devices.length} alive; ${tv.count(dv.faults)} worker faults, ` +
    `${tv.count(dv.retries)} pairs retried alone${dv.final ? '' : '; the run has not ended: figures so far'})`);
  const kinds = (k) => Object.entries(k || {}).map(([n, c]) => `${n} ${c}`).join(', ') || '-';
  tv.fillTable(document.querySelector('#devices tbody'), dv.devices.map((d) => [
    d.id, tv.el('span', d.state, { class: `badge ${d.state}` }), tv.count(d.measured), tv.count(d.restarts),
    tv.count(d.faults), kinds(d.fault_kinds), tv.count(d.poison), d.error || '-',
  ]));
  for (const row of document.querySelectorAll('#devices tbody tr')) {
    for (const i of [2, 3, 4, 6]) row.cells[i].className = 'num';
  }
  setText('poison-count', dv.poison_count ? `(${tv.count(dv.poison_count)}${dv.poison_count > dv.poison.length ? `, the first ${dv.poison.length} listed` : ''})` : '');
  document.getElementById('poison-none').hidden = dv.poison_count > 0;
  const table = document.getElementById('poison');
  table.hidden = dv.poison_count === 0;
  tv.fillTable(table.querySelector('tbody'), dv.poison.map((p) => (p.text !== undefined
    ? [p.text, '-', '-', '-', '-', '-']
    : [p.shape, p.config, (p.devices || []).join(', '), tv.count(p.strikes), p.error || '-', p.stderr || '-'])));
}

function shapeTooltip(half, item) {
  const rows = page.perShape && page.perShape.shapes.filter((r) => r.split.includes(half));
  const r = rows && rows[item.dataIndex];
  if (!r) return '';
  const key = item.dataset.methodKey;
  const cfg = r.configs[key];
  return cfg ? `config: ${cfg}${cfg === 'vendor' ? ' (vendor library)' : ''}` : '';
}

/** Which program the per-shape view shows; while a run goes on, the one of its last checkpoint. */
function perShapeCaption() {
  const ps = page.perShape;
  if (!ps) return;
  const finished = page.last && page.last.status === 'finished';
  setText('per-shape-of', finished ? `(best program #${ps.best_id})`
    : `(best program #${ps.best_id}, as of the run's last checkpoint)`);
}

function drawPerShape(ps) {
  page.perShape = ps && !ps.error ? ps : null;
  const missing = document.getElementById('per-shape-missing');
  missing.hidden = !!page.perShape;
  if (ps && ps.error) { missing.hidden = false; missing.textContent = ps.error; }
  if (!page.perShape) return;
  perShapeCaption();
  const vendorShapes = ps.shapes.filter((r) => r.configs.best === 'vendor').length;
  const vendorNote = document.getElementById('vendor-note');
  vendorNote.hidden = vendorShapes === 0;
  vendorNote.textContent = `Amber bars: the ${vendorShapes} shapes where the best program returns "vendor" ` +
    '(calls the vendor library instead of the tiled kernel).';
  const keys = shapeMethods.filter((k) => ps.shapes.some((r) => k in r.speedup));
  for (const half of ['train', 'test']) {
    const rows = ps.shapes.filter((r) => r.split.includes(half));
    const chart = page.charts[`chart-shapes-${half}`];
    chart.data.labels = rows.map((r) => r.shape);
    chart.data.datasets = keys.map((k) => ({
      label: methodNames[k], methodKey: k, type: k === 'best' ? 'bar' : 'line', showLine: false,
      data: rows.map((r) => r.speedup[k]), borderColor: colors[k],
      backgroundColor: k === 'best' ? rows.map((r) => (r.configs.best === 'vendor' ? colors.vendorBar : colors.best)) : colors[k],
      pointRadius: k === 'best' ? 0 : 3, pointStyle: k === 'oracle' ? 'line' : 'circle', order: k === 'best' ? 2 : 1,
    }));
    chart.update('none');
  }
  tv.fillTable(document.querySelector('#methods tbody'), ps.methods.map((m) => [
    m.label || methodNames[m.key] || m.key, tv.speedup(m.train.speedup_vs_expert), tv.percent(m.train.fraction_of_oracle),
    tv.speedup(m.test.speedup_vs_expert), tv.percent(m.test.fraction_of_oracle),
  ]), 1);
  const configCell = (c) => {
    if (c !== 'vendor') return c || '-';
    return tv.el('span', 'vendor library', { class: 'vendor' });
  };
  const limit = 2000;
  // A test shape outside the training range of the best program: it extrapolates there.
  const splitCell = (r) => (r.in_training_range === false
    ? tv.el('span', `${r.split} (outside training range)`, { class: 'outside', title:
      'in_training_range is false: the rule deciding this shape decided no training shape like it' })
    : r.split);
  tv.fillTable(document.querySelector('#shapes tbody'), ps.shapes.slice(0, limit).map((r) => [
    r.shape, splitCell(r), typeof r.weight === 'number' ? r.weight.toPrecision(3) : '-', configCell(r.configs.expert),
    configCell(r.configs.best), configCell(r.configs.tree), ...shapeMethods.map((k) => tv.speedup(r.speedup[k])),
  ]), 6);
  treeNote(ps);
}

/** The best program against the decision tree, on each half, from the per-shape view. */
function treeNote(ps) {
  const note = document.getElementById('tree-note');
  const method = (k) => ps.methods.find((m) => m.key === k);
  const best = method('best');
  const tree = method('tree');
  note.hidden = !best || !tree;
  if (note.hidden) return;
  const sentence = (half, what) => {
    const b = best[half].fraction_of_oracle;
    const t = tree[half].fraction_of_oracle;
    if (typeof b !== 'number' || typeof t !== 'number') return '';
    const rows = ps.shapes.filter((r) => r.split.includes(half) &&
      typeof r.speedup.best === 'number' && typeof r.speedup.tree === 'number');
    const faster = rows.filter((r) => r.speedup.best > r.speedup.tree * (1 + 1e-9)).length;
    const slower = rows.filter((r) => r.speedup.best < r.speedup.tree * (1 - 1e-9)).length;
    const differ = rows.filter((r) => r.configs.best !== r.configs.tree).length;
    return `On the ${rows.length} ${what} the best program reaches ${tv.percent(b)} of the ` +
      `per-shape oracle, the tree ${tv.percent(t)} (${tv.points(100 * (b - t))}); it picks ` +
      `another config on ${differ}, faster on ${faster}, slower on ${slower}.`;
  };
  note.textContent = ['Against the decision tree (fitted on every config timed on every ' +
    'training shape).', sentence('test', 'held-out shapes'), sentence('train', 'training shapes')]
    .filter(Boolean).join(' ');
}

function drawHeader(s) {
  setText('run-name', s.name);
  document.title = `tilevolve: ${s.name}`;
  const status = document.getElementById('status');
  status.textContent = s.status + (s.end && s.end.stop ? ` (${s.end.stop})` : '');
  status.className = `badge ${s.status}`;
  const c = s.config || {};
  const parts = [c.gpu, c.backend, c.split && `split ${c.split}`, c.mutator,
    c.vendor_dispatch ? 'vendor dispatch' : null].filter(Boolean);
  setText('problem', parts.join(' · '));
  setText('programs', tv.count(s.programs));
  setText('budget', s.budget ? `of ${tv.count(s.budget)} budgeted` : '');
  const b = s.best || {};
  setText('best-train', tv.speedup(b.train));
  setText('best-train-oracle', typeof b.train_of_oracle === 'number' ? `${tv.percent(b.train_of_oracle)} of oracle` : '');
  setText('best-test', tv.speedup(b.test));
  setText('best-test-oracle', typeof b.test_of_oracle === 'number' ? `${tv.percent(b.test_of_oracle)} of oracle` : '');
  setText('kernel-runs', tv.count(s.counters.kernel_runs));
  const o = c.options || {};
  const cap = typeof o.max_kernel_runs === 'number' ? tv.count(o.max_kernel_runs)
    : typeof o.max_kernel_share === 'number' ? `${tv.percent(o.max_kernel_share)} of exhaustive` : '';
  setText('exhaustive', [typeof s.counters.exhaustive_train_runs === 'number'
    ? `exhaustive tuning: ${tv.count(s.counters.exhaustive_train_runs)}` : '',
  cap ? `cap: ${cap}` : ''].filter(Boolean).join(' · '));
  setText('best-id', b.id ? `#${b.id}` : '-');
  setText('best-op', b.op ? `by ${b.op} at program ${b.n}` : '');
  const ev = s.events;
  setText('events-info', `events.ndjson: ${tv.count(ev.bytes)} bytes, ${tv.count(ev.lines)} lines` +
    (ev.bad_lines + ev.bad_events ? `, ${ev.bad_lines + ev.bad_events} skipped (${ev.first_problem || 'bad fields'})` : '') + '.');
  const api = document.getElementById('api-link');
  api.href = `/api/runs/${encodeURIComponent(s.name)}`;
  api.textContent = api.getAttribute('href');
  const files = document.getElementById('files');
  files.replaceChildren(...['config.json', 'events.ndjson', 'best.py', 'best_simplified.py', 'per_shape.json', 'lineage.dot', 'summary.txt']
    .map((f) => tv.el('a', f, { href: `/files/${encodeURIComponent(s.name)}/${f}` })));
}

async function refresh() {
  let s;
  try {
    s = await tv.getJSON(`/api/runs/${encodeURIComponent(runName)}`);
    document.getElementById('error').hidden = true;
  } catch (e) {
    const err = document.getElementById('error');
    err.hidden = false;
    err.textContent = String(e.message || e);
    return;
  }
  page.last = s;
  drawHeader(s);
  drawProgress(s);
  drawCounters(s);
  drawOperators(s);
  drawBest(s);
  drawLineage(s);
  drawDevices(s);
  if (s.per_shape_version !== page.perShapeVersion) {
    const ps = await tv.getJSON(`/api/runs/${encodeURIComponent(runName)}/per_shape`);
    page.perShapeVersion = ps.version;
    drawPerShape(ps.per_shape);
  }
  perShapeCaption();
  page.updates += 1;
}

setupCharts();
// A finished run changes no more: look again only now and then.
tv.poll(refresh, () => (page.last && page.last.status === 'finished' ? 5 * pollMs : pollMs));
