// One split study's page (`tilevolve splits --out DIR`): polls /api/studies/NAME and draws,
// per split, the evolved median against the decision tree and the other baselines.
'use strict';

const studyName = decodeURIComponent(location.pathname.split('/')[2] || '');
const studyPage = { updates: 0, charts: {}, study: null };
window.tvDashboard = studyPage;

const studyColors = { evolved: '#1f6feb', tree: '#c2255c', cost: '#e67700', single: '#2b8a3e' };

Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.family = 'system-ui, sans-serif';

/** A number field of an untrusted object, or null. */
function num(o, ...path) {
  let v = o;
  for (const k of path) v = v !== null && typeof v === 'object' ? v[k] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function setupStudyCharts() {
  const pct = (v) => `${v}%`;
  studyPage.charts.splits = new Chart(document.getElementById('chart-splits'), {
    type: 'bar',
    data: { labels: [], datasets: [
      { label: 'evolved (median)', data: [], backgroundColor: studyColors.evolved },
      { label: 'decision tree', data: [], backgroundColor: studyColors.tree },
      { label: 'cost-matched tree', data: [], backgroundColor: studyColors.cost },
      { label: 'best single config', data: [], backgroundColor: studyColors.single },
    ] },
    options: { scales: { x: { title: { display: true, text: 'split seed' } },
      y: { title: { display: true, text: '% of the per-shape oracle on test' }, ticks: { callback: pct } } } },
  });
  studyPage.charts.gaps = new Chart(document.getElementById('chart-gaps'), {
    type: 'bar',
    data: { labels: [], datasets: [{ label: 'evolved - tree (points)', data: [], backgroundColor: [] }] },
    options: { plugins: { legend: { display: false } },
      scales: { x: { title: { display: true, text: 'split seed' } }, y: { title: { display: true, text: 'points' } } } },
  });
}

/** Percent with one decimal from a fraction, for chart data (null stays a gap). */
const pc = (v) => (v === null ? null : Math.round(1000 * v) / 10);

function renderStudy(s) {
  document.getElementById('study-name').textContent = studyName;
  const splits = Array.isArray(s.splits) ? s.splits : [];
  const seeds = num(s, 'seeds');
  document.getElementById('problem').textContent =
    [s.gpu, s.backend, typeof s.split === 'string' ? `${s.split} splits` : null,
      `${splits.length} splits x ${seeds === null ? '?' : seeds} seeds`,
      num(s, 'budget') === null ? null : `budget ${tv.count(num(s, 'budget'))}`]
      .filter((x) => typeof x === 'string' && x).join(' · ');
  document.getElementById('gap-tree').textContent = tv.points(num(s, 'mean_test_gap_to_tree') === null ? null : 100 * num(s, 'mean_test_gap_to_tree'));
  const se = num(s, 'mean_test_gap_to_tree_standard_error');
  document.getElementById('gap-tree-se').textContent = se === null ? '' : `standard error ${(100 * se).toFixed(2)} pts`;
  document.getElementById('at-least-tree').textContent =
    num(s, 'splits_at_least_tree') === null ? '-' : `${num(s, 'splits_at_least_tree')} of ${splits.length}`;
  document.getElementById('at-least-single').textContent = num(s, 'splits_at_least_best_single_config') === null ? ''
    : `at or above the best single config on ${num(s, 'splits_at_least_best_single_config')}`;
  document.getElementById('gap-cost-tree').textContent = tv.points(num(s, 'mean_test_gap_to_cost_matched_tree') === null ? null : 100 * num(s, 'mean_test_gap_to_cost_matched_tree'));
  document.getElementById('at-least-cost-tree').textContent = num(s, 'splits_at_least_cost_matched_tree') === null ? ''
    : `at or above it on ${num(s, 'splits_at_least_cost_matched_tree')} of ${splits.length} splits`;
  document.getElementById('runs-below').textContent = num(s, 'runs_below_tree_by_1pt') === null ? '-'
    : `${num(s, 'runs_below_tree_by_1pt')} of ${num(s, 'runs') === null ? '?' : num(s, 'runs')}`;
  document.getElementById('worst-run').textContent = num(s, 'worst_run_gap_to_tree') === null ? ''
    : `the lowest run ${tv.points(100 * num(s, 'worst_run_gap_to_tree'))}`;
  document.getElementById('kernel-runs').textContent = tv.percent(num(s, 'max_kernel_run_fraction'));

  const labels = splits.map((r) => (num(r, 'split_seed') === null ? '-' : String(num(r, 'split_seed'))));
  const c = studyPage.charts.splits;
  c.data.labels = labels;
  c.data.datasets[0].data = splits.map((r) => pc(num(r, 'evolved', 'test_median')));
  c.data.datasets[1].data = splits.map((r) => pc(num(r, 'decision_tree', 'test_fraction_of_oracle')));
  c.data.datasets[2].data = splits.map((r) => pc(num(r, 'cost_matched_tree', 'test_median')));
  c.data.datasets[3].data = splits.map((r) => pc(num(r, 'best_single_config', 'test_fraction_of_oracle')));
  // Bars that differ by a point or two: the axis starts 5% below the lowest, on a multiple of 5.
  const values = c.data.datasets.flatMap((d) => d.data).filter((v) => v !== null);
  c.options.scales.y.min = values.length ? Math.max(0, 5 * Math.floor(Math.min(...values) / 5) - 5) : 0;
  c.update();
  const g = studyPage.charts.gaps;
  const gaps = splits.map((r) => (num(r, 'test_gap_to_tree') === null ? null : Math.round(10000 * num(r, 'test_gap_to_tree')) / 100));
  g.data.labels = labels;
  g.data.datasets[0].data = gaps;
  g.data.datasets[0].backgroundColor = gaps.map((v) => (v !== null && v < 0 ? studyColors.tree : studyColors.evolved));
  g.update();

  const rows = splits.map((r) => {
    // Any item may be of any type, null included: only an object's fields are read.
    const evolved = r !== null && typeof r === 'object' ? r.evolved : undefined;
    const tests = evolved !== null && typeof evolved === 'object' && Array.isArray(evolved.test_fraction_of_oracle)
      ? evolved.test_fraction_of_oracle.filter((v) => typeof v === 'number') : [];
    const range = tests.length ? `${tv.percent(Math.min(...tests))} - ${tv.percent(Math.max(...tests))}` : null;
    const pts = (v) => tv.points(v === null ? null : 100 * v);
    return [num(r, 'split_seed'), tv.percent(num(r, 'evolved', 'test_median')), range,
      tv.percent(num(r, 'decision_tree', 'test_fraction_of_oracle')), pts(num(r, 'test_gap_to_tree')),
      tv.percent(num(r, 'cost_matched_tree', 'test_median')), pts(num(r, 'test_gap_to_cost_matched_tree')),
      tv.percent(num(r, 'best_single_config', 'test_fraction_of_oracle')),
      tv.percent(num(r, 'per_m_table', 'test_fraction_of_oracle')), tv.percent(num(r, 'max_kernel_run_fraction'))];
  });
  tv.fillTable(document.querySelector('#splits tbody'), rows, 1);
}

async function refreshStudy() {
  const error = document.getElementById('error');
  try {
    const s = await tv.getJSON(`/api/studies/${encodeURIComponent(studyName)}`);
    studyPage.study = s;
    error.hidden = true;
    renderStudy(s);
  } catch (e) {
    error.hidden = false;
    error.textContent = e.message;
  }
  studyPage.updates += 1;
}

document.getElementById('report-link').href = `/files/${encodeURIComponent(studyName)}/report.md`;
document.getElementById('json-link').href = `/api/studies/${encodeURIComponent(studyName)}`;
setupStudyCharts();
tv.poll(refreshStudy, 5000);
