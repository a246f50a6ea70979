// Grafana's production webpack build, driven through webpack's Node API: webpack-cli crashes under Node 20 with Yarn
// Plug'n'Play. Run from the Grafana source directory with `node --require ./.pnp.cjs`.
const fs = require('fs');
const path = require('path');
const webpack = require('webpack');

const config = require('./scripts/webpack/webpack.prod.js')({});
config.devtool = false; // no source maps: half the time and memory on a small machine
config.cache = false; // the persistent cache's snapshot of build dependencies fails under PnP

// Type checking and linting add nothing to the assets.
config.plugins = config.plugins.filter((plugin) => !/ForkTsChecker|ESLint/i.test(plugin.constructor.name));
// copy-webpack-plugin imports an ES module that the CommonJS PnP hook cannot resolve; what it copied (the Monaco
// editor's files) is copied below instead.
config.plugins = config.plugins.filter((plugin) => plugin.constructor.name !== 'CopyPlugin');

// Legacy vendor modules with no npm release left to refill public/vendor/: empty modules.
const vendorModules = ['vendor/bootstrap/bootstrap', 'vendor/tagsinput/bootstrap-tagsinput.js', 'vendor/flot/jquery.flot']
  .concat(['selection', 'time', 'stack', 'stackpercent', 'fillbelow', 'crosshair', 'dashes', 'gauge'].map((p) => `vendor/flot/jquery.flot.${p}`));
const absent = vendorModules.filter((m) => !fs.existsSync(path.join(__dirname, 'public', m.endsWith('.js') ? m : `${m}.js`)));
config.resolve = config.resolve || {};
config.resolve.alias = { ...config.resolve.alias, ...Object.fromEntries(absent.map((m) => [m, false])) };
console.log(`vendor modules left empty: ${absent.join(', ') || 'none'}`);

function copyTree(from, to, keep) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      copyTree(source, target, keep);
    } else if (keep(entry.name)) {
      fs.copyFileSync(source, target);
    }
  }
}

const started = Date.now();
webpack(config, (error, stats) => {
  if (error) {
    console.error(error);
    process.exit(1);
  }
  const info = stats.toJson({ all: false, errors: true });
  if (stats.hasErrors()) {
    console.error(JSON.stringify(info.errors.slice(0, 5), null, 1).slice(0, 4000));
  }
  const monaco = path.join(path.dirname(require.resolve('monaco-editor/package.json')), 'min', 'vs');
  copyTree(monaco, path.join(__dirname, 'public/lib/monaco/min/vs'), (name) => !name.endsWith('.map'));
  const kusto = path.dirname(require.resolve('@kusto/monaco-kusto'));
  copyTree(kusto, path.join(__dirname, 'public/lib/monaco/min/vs/language/kusto'), () => true);
  console.log(`webpack: ${(Date.now() - started) / 1000} s, ${info.errors.length} errors`);
  process.exit(stats.hasErrors() ? 2 : 0);
});
