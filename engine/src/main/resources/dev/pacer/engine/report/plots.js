// Draws every div.plot of a pacer report from the JSON spec it holds, with uPlot. Percentile axes are "nines":
// x = -log10(1 - p/100), so that 90 %, 99 %, 99.9 % lie equally apart; log y axes leave out values that are not positive.
(function () {
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
  function nines(p) { return -Math.log10(1 - Math.min(p, 99.9999) / 100); }
  function percentile(n) { return String(Math.round((100 - 100 / Math.pow(10, n)) * 10000) / 10000) + ' %'; }
  function draw(el) {
    var spec = JSON.parse(el.querySelector('script.plot-spec').textContent);
    var byPercentile = spec.x === 'percentile';
    var tables = spec.series.map(function (s) {
      var xs = [], ys = [];
      s.points.forEach(function (p) {
        xs.push(byPercentile ? nines(p[0]) : p[0]);
        ys.push(spec.logY && !(p[1] > 0) ? null : p[1]);
      });
      return [xs, ys];
    });
    if (tables.length === 0) { return; }
    var data = uPlot.join(tables);
    var xAxis = byPercentile ? {
      label: 'percentile',
      splits: function (u, i, min, max) { var s = []; for (var n = Math.ceil(min); n <= max; n++) { s.push(n); } return s; },
      values: function (u, splits) { return splits.map(percentile); }
    } : { label: spec.x };
    var series = [{ label: byPercentile ? 'percentile' : spec.x,
                    value: byPercentile ? function (u, v) { return v == null ? '–' : percentile(v); } : undefined }];
    spec.series.forEach(function (s, i) {
      series.push({ label: s.label, stroke: palette[i % palette.length], width: 1.5, spanGaps: true,
                    points: { show: s.points.length <= 40 } });
    });
    new uPlot({
      title: spec.title,
      width: Math.max(480, (el.clientWidth || 1000) - 8),
      height: 300,
      scales: { x: { time: false }, y: spec.logY ? { distr: 3 } : {} },
      axes: [xAxis, { label: spec.unit, size: 64 }],
      series: series
    }, data, el);
  }
  document.querySelectorAll('div.plot').forEach(draw);
})();
