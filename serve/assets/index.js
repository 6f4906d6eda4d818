// The index page: every run under the runs directory, refreshed every 2 s.
'use strict';

const indexState = { updates: 0, runs: [] };
window.tvDashboard = indexState;

async function refreshIndex() {
  const data = await tv.getJSON('/api/runs');
  indexState.runs = data.runs;
  document.getElementById('root').textContent = data.root;
  const empty = document.getElementById('empty');
  empty.hidden = data.runs.length > 0;
  empty.textContent = `No runs under ${data.root} yet: start one with ` +
    `tilevolve evolve --out ${data.root}/NAME`;
  const rows = data.runs.map((r) => {
    const link = tv.el('a', r.name, { href: `/run/${encodeURIComponent(r.name)}` });
    const best = r.best || {};
    const programs = r.budget ? `${tv.count(r.programs)} / ${tv.count(r.budget)}` : tv.count(r.programs);
    return [link, tv.badge(r.status), r.gpu, r.backend, r.mutator, programs,
      tv.speedup(best.train), tv.speedup(best.test), tv.percent(best.train_of_oracle),
      tv.percent(best.test_of_oracle), tv.points(r.vs_tree && r.vs_tree.test), tv.age(r.updated_seconds_ago)];
  });
  tv.fillTable(document.querySelector('#runs tbody'), rows, 5);
  indexState.updates += 1;
}

tv.poll(refreshIndex, 2000);
