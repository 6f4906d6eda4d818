// The index page: every run and split study under the runs directory, refreshed every 2 s.
'use strict';

const indexState = { updates: 0, runs: [], studies: [] };
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
  await refreshStudies();
  indexState.updates += 1;
}

/** The split studies table, shown when the root holds one. */
async function refreshStudies() {
  const data = await tv.getJSON('/api/studies');
  indexState.studies = data.studies;
  document.getElementById('studies-section').hidden = data.studies.length === 0;
  const rows = data.studies.map((s) => {
    const link = tv.el('a', s.name, { href: `/study/${encodeURIComponent(s.name)}` });
    if (s.status !== 'ok') {
      const why = tv.el('span', s.error, { class: 'error-text' });
      return [link, tv.badge(s.status), why, null, null, null, null, null, null, null, null, null];
    }
    return [link, tv.badge(s.status), s.gpu, s.backend, s.split, tv.count(s.splits), tv.count(s.seeds),
      tv.pointsSe(s.mean_test_gap_to_tree, s.mean_test_gap_to_tree_standard_error),
      typeof s.splits_at_least_tree === 'number' ? `${s.splits_at_least_tree} of ${s.splits}` : null,
      tv.points(typeof s.mean_test_gap_to_cost_matched_tree === 'number' ? 100 * s.mean_test_gap_to_cost_matched_tree : null),
      tv.percent(s.max_kernel_run_fraction), tv.age(s.updated_seconds_ago)];
  });
  tv.fillTable(document.querySelector('#studies tbody'), rows, 5);
}

tv.poll(refreshIndex, 2000);
