#!/usr/bin/env bash
# Rebuild three.viz.min.js: the parts of three.js the viewer uses, bundled and minified.
# Needs node and npm (only to rebuild; the built file is committed as package data).
#   bash src/robodyn/viz/vendor/build_three.sh
set -euo pipefail
THREE=0.187.0
ESBUILD=0.25.0
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund "three@$THREE" "esbuild@$ESBUILD"
cat > entry.js <<'JS'
export {
  WebGLRenderer, Scene, PerspectiveCamera, Color, Group, Mesh, LineSegments,
  BufferGeometry, BufferAttribute, Float32BufferAttribute, BoxGeometry, CylinderGeometry,
  SphereGeometry, CapsuleGeometry, MeshStandardMaterial, MeshLambertMaterial, MeshBasicMaterial, LineBasicMaterial,
  AmbientLight, DirectionalLight, HemisphereLight, GridHelper, AxesHelper, Matrix4,
  Vector3, Quaternion, Spherical, DoubleSide, SRGBColorSpace
} from "three";
JS
./node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=THREE \
  --legal-comments=none --target=es2020 --outfile=three.viz.min.js
{
  echo "/* three.js (npm three@$THREE, MIT, see LICENSE-three.txt), the classes"
  echo "   robodyn.viz uses, bundled by esbuild@$ESBUILD (build_three.sh beside this file) */"
  cat three.viz.min.js
} > "$here/three.viz.min.js"
cp node_modules/three/LICENSE "$here/LICENSE-three.txt"
