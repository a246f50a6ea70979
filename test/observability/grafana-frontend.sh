#!/usr/bin/env bash
# Builds Grafana's frontend (public/build, public/views/index.html) from the sources inside the Go module copy of
# grafana-backend.sh, with packages from the npm registry only, once; without it Grafana's UI routes answer empty
# pages. Facts this build works around:
#   - package.json points xlsx at a CDN tarball: it is repointed to xlsx 0.18.5 from npm (used by "export to Excel");
#   - Yarn 3.4.1 (shipped in .yarn/releases) is told the npm registry; installs with Plug'n'Play, builds skipped;
#   - the Go module zip drops every directory named "vendor", so public/vendor/ is refilled from npm packages
#     (bootstrap2 2.3.2's jQuery plugins, bootstrap-tagsinput 0.7.1, flot 0.8.3); flot plugins with no npm release are
#     aliased to empty modules by build-frontend.js (only the legacy Angular graph panel uses them);
#   - webpack-cli crashes under Node 20 with PnP, so build-frontend.js drives webpack's Node API (see its comments).
# Cold: yarn install about 25 minutes (mostly downloads), webpack about 2 minutes.
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
"$DIR/grafana-backend.sh"
cd "$GRAFANA_SRC"
if [[ -f public/views/index.html && -d public/build ]]; then
  exit 0
fi
python3 - <<'PY'
import json
package = json.load(open("package.json"))
if package["dependencies"].get("xlsx", "").startswith("http"):
    package["dependencies"]["xlsx"] = "0.18.5"
    json.dump(package, open("package.json", "w"), indent=2)
PY
export YARN_NPM_REGISTRY_SERVER=https://registry.npmjs.org YARN_ENABLE_TELEMETRY=0 YARN_ENABLE_GLOBAL_CACHE=0 \
       YARN_ENABLE_IMMUTABLE_INSTALLS=0 CYPRESS_INSTALL_BINARY=0 PUPPETEER_SKIP_DOWNLOAD=1 HUSKY=0
if [[ ! -f .pnp.cjs ]]; then
  log "yarn install of Grafana's frontend packages (cold: about 25 minutes)"
  node .yarn/releases/yarn-3.*.cjs install --mode=skip-build
fi
vendor=public/vendor
if [[ ! -f $vendor/bootstrap/bootstrap.js ]]; then
  packs=$(mktemp -d)
  (cd "$packs" && for p in bootstrap2@2.3.2 bootstrap-tagsinput@0.7.1 flot@0.8.3; do npm pack --silent "$p" >/dev/null; done \
     && for f in *.tgz; do mkdir -p "${f%.tgz}" && tar xzf "$f" -C "${f%.tgz}"; done)
  mkdir -p $vendor/bootstrap $vendor/tagsinput $vendor/flot
  for plugin in transition modal dropdown scrollspy tab tooltip popover alert button collapse carousel typeahead affix; do
    cat "$packs/bootstrap2-2.3.2/package/js/bootstrap-$plugin.js"; echo
  done >$vendor/bootstrap/bootstrap.js
  cp "$packs/bootstrap-tagsinput-0.7.1/package/dist/bootstrap-tagsinput.js" $vendor/tagsinput/
  for f in jquery.flot jquery.flot.time jquery.flot.selection jquery.flot.stack jquery.flot.crosshair; do
    cp "$packs/flot-0.8.3/package/$f.js" $vendor/flot/
  done
  rm -rf "$packs"
fi
log "webpack production build of Grafana's frontend"
cp "$DIR/build-frontend.js" "$GRAFANA_SRC/pacer-build-frontend.js"
NODE_OPTIONS="--max-old-space-size=8192 --require ./.pnp.cjs" NODE_ENV=production node pacer-build-frontend.js
ls public/views/index.html >/dev/null
