/* robodyn 3-D viewer: draws a scene computed by robodyn.viz (Python) with three.js.
   The page does no kinematics: every body pose of every frame comes with the scene.
   window.robodyn exposes the state for tests and scripts (setFrame, play, pause, camera). */
(async function () {
  "use strict";
  const T3 = THREE;
  const data = JSON.parse(document.getElementById("rd-scene").textContent);

  // arrays come base64-encoded, deflated and byte-shuffled (robodyn/viz/page.py: _b64)
  async function bytes(b64, size) {
    const s = atob(b64);
    const z = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) z[i] = s.charCodeAt(i);
    const stream = new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate"));
    const raw = new Uint8Array(await new Response(stream).arrayBuffer());
    if (size === 1) return raw.buffer;
    const n = raw.length / size, out = new Uint8Array(raw.length);
    for (let p = 0; p < size; p++) {
      const o = p * n;
      for (let i = 0; i < n; i++) out[i * size + p] = raw[o + i];
    }
    return out.buffer;
  }
  const F = data.frameCount, nb = data.bodyNames.length, nq = data.nq;
  const times = new Float64Array(await bytes(data.t, 8));
  const qs = new Float32Array(await bytes(data.q, 4));
  const poses = new Float32Array(await bytes(data.poses, 4));  // (nb * 7, F)
  const meshData = await Promise.all(data.meshes.map(async function (m) {
    return [await bytes(m.positions, 4), await bytes(m.indices, 4), m.colors ? await bytes(m.colors, 1) : null];
  }));

  // ------------------------------------------------------------------ renderer, camera
  const canvas = document.getElementById("rd-canvas");
  // a software rasteriser (no GPU: SwiftShader, llvmpipe) draws 3x faster without MSAA
  const probe = document.createElement("canvas").getContext("webgl2");
  const info = probe && probe.getExtension("WEBGL_debug_renderer_info");
  const gpu = info ? String(probe.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "";
  const software = /swiftshader|llvmpipe|software/i.test(gpu);
  if (probe) { const lose = probe.getExtension("WEBGL_lose_context"); if (lose) lose.loseContext(); }
  const renderer = new T3.WebGLRenderer({ canvas, antialias: !software, preserveDrawingBuffer: true });
  renderer.setPixelRatio(software ? 1 : window.devicePixelRatio || 1);
  renderer.outputColorSpace = T3.SRGBColorSpace;
  const scene = new T3.Scene();
  scene.background = new T3.Color(0xf4f5f7);
  const camera = new T3.PerspectiveCamera(40, 1, 0.01, 100);
  camera.up.set(0, 0, 1);
  scene.add(new T3.HemisphereLight(0xffffff, 0x8a8f99, 1.6));
  const sun = new T3.DirectionalLight(0xffffff, 1.6);
  sun.position.set(3, -2, 5);
  scene.add(sun);
  const fill = new T3.DirectionalLight(0xffffff, 0.6);
  fill.position.set(-3, 4, 2);
  scene.add(fill);

  // world axes and a ground grid in the z = 0 plane (1 m squares split in 10)
  const R = Math.max(data.radius, 0.15);
  const gridSize = Math.max(2, 2 * Math.ceil(2 * R + Math.hypot(data.center[0], data.center[1])));
  const grid = new T3.GridHelper(gridSize, gridSize * 10, 0xa8adb7, 0xd6d9de);
  grid.rotation.x = Math.PI / 2;
  scene.add(grid);
  const axes = new T3.AxesHelper(Math.max(0.25, 0.3 * R));
  axes.renderOrder = 1;
  scene.add(axes);

  // ------------------------------------------------------------------ bodies and shapes
  const bodies = [];
  for (let i = 0; i < nb; i++) {
    const g = new T3.Group();
    g.name = data.bodyNames[i];
    g.matrixAutoUpdate = false;
    scene.add(g);
    bodies.push(g);
  }
  const meshGeoms = meshData.map(function (m) {
    const geo = new T3.BufferGeometry();
    geo.setAttribute("position", new T3.BufferAttribute(new Float32Array(m[0]), 3));
    geo.setIndex(new T3.BufferAttribute(new Uint32Array(m[1]), 1));
    if (m[2]) geo.setAttribute("color", new T3.BufferAttribute(new Uint8Array(m[2]), 3, true));
    geo.computeVertexNormals();
    return geo;
  });
  function material(rgba, vertexColors) {
    const c = new T3.Color().setRGB(rgba[0], rgba[1], rgba[2], T3.SRGBColorSpace);
    return new T3.MeshLambertMaterial({
      color: vertexColors ? 0xffffff : c, vertexColors: !!vertexColors,
      transparent: rgba[3] < 1, opacity: rgba[3], side: T3.DoubleSide,
    });
  }
  function triad(size) {
    const geo = new T3.BufferGeometry();
    geo.setAttribute("position", new T3.Float32BufferAttribute(
      [0, 0, 0, size, 0, 0, 0, 0, 0, 0, size, 0, 0, 0, 0, 0, 0, size], 3));
    geo.setAttribute("color", new T3.Float32BufferAttribute(
      [1, 0, 0, 1, 0, 0, 0, 0.7, 0, 0, 0.7, 0, 0, 0, 1, 0, 0, 1], 3));
    return new T3.LineSegments(geo, new T3.LineBasicMaterial({ vertexColors: true }));
  }
  const counts = {};
  for (const s of data.shapes) {
    let obj;
    if (s.kind === "box") obj = new T3.Mesh(new T3.BoxGeometry(s.size[0], s.size[1], s.size[2]), material(s.rgba));
    else if (s.kind === "sphere") obj = new T3.Mesh(new T3.SphereGeometry(s.radius, 24, 16), material(s.rgba));
    else if (s.kind === "cylinder") obj = new T3.Mesh(new T3.CylinderGeometry(s.radius, s.radius, s.length, 24), material(s.rgba));
    else if (s.kind === "capsule") obj = new T3.Mesh(new T3.CapsuleGeometry(s.radius, s.length, 8, 16), material(s.rgba));
    else if (s.kind === "ellipsoid") obj = new T3.Mesh(new T3.SphereGeometry(1, 24, 16), material(s.rgba));
    else if (s.kind === "mesh") obj = new T3.Mesh(meshGeoms[s.mesh], material(s.rgba, s.vertex_colors));
    else if (s.kind === "triad") obj = triad(s.size);
    else continue;
    obj.matrixAutoUpdate = false;
    obj.matrix.fromArray(s.T);
    if (s.kind === "ellipsoid") obj.matrix.multiply(new T3.Matrix4().makeScale(s.size[0], s.size[1], s.size[2]));
    if (s.role === "marker") {
      obj.material = new T3.MeshBasicMaterial({ color: 0xff00ff, depthTest: false });
      obj.renderOrder = 10;
    }
    obj.userData.role = s.role;
    counts[s.role] = (counts[s.role] || 0) + 1;
    bodies[s.body].add(obj);
  }

  // ------------------------------------------------------------------ camera control
  const target = new T3.Vector3(data.center[0], data.center[1], data.center[2]);
  const view = { az: -Math.PI / 4 - 0.35, el: 0.38, dist: 1.2 * R / Math.sin(20 * Math.PI / 180) };
  function placeCamera() {
    const ce = Math.cos(view.el);
    camera.position.set(target.x + view.dist * ce * Math.cos(view.az),
      target.y + view.dist * ce * Math.sin(view.az), target.z + view.dist * Math.sin(view.el));
    camera.near = view.dist / 200;
    camera.far = view.dist * 200;
    camera.lookAt(target);
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld(true);
    dirty = true;
  }
  let drag = null;
  canvas.addEventListener("contextmenu", function (e) { e.preventDefault(); });
  canvas.addEventListener("pointerdown", function (e) {
    drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointerup", function () { drag = null; });
  canvas.addEventListener("pointermove", function (e) {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.x = e.clientX; drag.y = e.clientY;
    if (drag.pan) {
      const k = 2 * view.dist * Math.tan(camera.fov * Math.PI / 360) / canvas.clientHeight;
      const right = new T3.Vector3().setFromMatrixColumn(camera.matrixWorld, 0);
      const up = new T3.Vector3().setFromMatrixColumn(camera.matrixWorld, 1);
      target.addScaledVector(right, -dx * k).addScaledVector(up, dy * k);
    } else {
      view.az -= dx * 0.008;
      view.el = Math.max(-1.5, Math.min(1.5, view.el + dy * 0.008));
    }
    placeCamera();
  });
  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    view.dist *= Math.exp(0.001 * e.deltaY);
    placeCamera();
  }, { passive: false });

  // ------------------------------------------------------------------ panels
  const q0 = document.getElementById("rd-readout");
  const slider = document.getElementById("rd-slider");
  const playBtn = document.getElementById("rd-play");
  const speedSel = document.getElementById("rd-speed");
  const timeEl = document.getElementById("rd-time");
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }
  document.getElementById("rd-title").innerHTML = esc(data.title) + " <small>" + nb + " bodies, nq = " + nq +
    (F > 1 ? ", " + F + " frames" : "") + "</small>";
  const msgs = [];
  if (data.missing.length) msgs.push("<b>Not drawn (shown as a stick figure):</b><ul id=\"rd-missing\">" +
    data.missing.map(function (m) { return "<li>" + esc(m) + "</li>"; }).join("") + "</ul>");
  if (data.notes.length) msgs.push("<ul id=\"rd-notes\">" + data.notes.map(function (m) { return "<li>" + esc(m) + "</li>"; }).join("") + "</ul>");
  if (msgs.length) { const m = document.getElementById("rd-messages"); m.innerHTML = msgs.join(""); m.style.display = "block"; }
  const labels = data.qLabels;
  q0.innerHTML = "<table><tbody>" + labels.map(function (n, k) {
    return "<tr><td>" + esc(n) + "</td><td class=\"v\" id=\"rd-q" + k + "\"></td></tr>";
  }).join("") + "</tbody></table>";
  const qCells = labels.map(function (_, k) { return document.getElementById("rd-q" + k); });
  slider.max = String(F - 1);
  if (F <= 1) { slider.disabled = true; playBtn.disabled = true; speedSel.disabled = true; }

  // ------------------------------------------------------------------ frames and playback
  const pos = new T3.Vector3(), quat = new T3.Quaternion(), one = new T3.Vector3(1, 1, 1);
  let frame = -1, dirty = true, playing = false, tPlay = times[0], last = null, renders = 0;
  function setFrame(i) {
    i = Math.max(0, Math.min(F - 1, i | 0));
    for (let b = 0; b < nb; b++) {
      const k = 7 * b * F + i;  // channel (7 b + c) of frame i at (7 b + c) F + i
      pos.set(poses[k], poses[k + F], poses[k + 2 * F]);
      quat.set(poses[k + 3 * F], poses[k + 4 * F], poses[k + 5 * F], poses[k + 6 * F]);
      bodies[b].matrix.compose(pos, quat, one);
      bodies[b].matrixWorldNeedsUpdate = true;
    }
    if (i !== frame) {
      frame = i;
      slider.value = String(i);
      timeEl.textContent = "t = " + times[i].toFixed(4) + " s  (" + (i + 1) + "/" + F + ")";
      for (let k = 0; k < nq; k++) qCells[k].textContent = qs[i * nq + k].toFixed(4);
    }
    dirty = true;
    return i;
  }
  function frameAt(t) {  // last frame with times[i] <= t
    let lo = 0, hi = F - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (times[mid] <= t) lo = mid; else hi = mid - 1; }
    return lo;
  }
  function play() {
    if (F <= 1) return;
    if (frame >= F - 1) tPlay = times[0]; else tPlay = times[frame];
    playing = true; last = null; playBtn.textContent = "pause";
  }
  function pause() { playing = false; playBtn.textContent = "play"; }
  playBtn.addEventListener("click", function () { if (playing) pause(); else play(); });
  slider.addEventListener("input", function () { pause(); setFrame(+slider.value); });
  window.addEventListener("keydown", function (e) {
    if (e.code === "Space" && e.target.tagName !== "SELECT") { e.preventDefault(); if (playing) pause(); else play(); }
  });

  function resize() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
    dirty = true;
  }
  window.addEventListener("resize", resize);

  const api = window.robodyn = {
    ready: false, frameCount: F, gpu: gpu, antialias: !software, shapeCounts: counts, missing: data.missing, notes: data.notes,
    firstFrameMs: null, setFrame: function (i) { pause(); return setFrame(i); }, play: play, pause: pause,
    get frame() { return frame; }, get playing() { return playing; }, get renders() { return renders; },
    get speed() { return +speedSel.value; },
    time: function (i) { return times[i === undefined ? frame : i]; },
    q: function (i) { i = i === undefined ? frame : i; return Array.from(qs.subarray(i * nq, (i + 1) * nq)); },
    camera: function () {
      return { projection: camera.projectionMatrix.toArray(), view: camera.matrixWorldInverse.toArray(),
        width: canvas.clientWidth, height: canvas.clientHeight };
    },
    markerWorld: function (name) {
      const m = data.markers.find(function (x) { return x.name === name; });
      if (!m) return null;
      bodies[m.body].updateMatrixWorld(true);
      return new T3.Vector3(m.p[0], m.p[1], m.p[2]).applyMatrix4(bodies[m.body].matrixWorld).toArray();
    },
    markerScreen: function (name) {  // CSS pixels from the canvas's top left corner
      const p = api.markerWorld(name);
      if (!p) return null;
      const v = new T3.Vector3(p[0], p[1], p[2]).project(camera);
      return [(v.x + 1) / 2 * canvas.clientWidth, (1 - v.y) / 2 * canvas.clientHeight];
    },
    markers: data.markers.map(function (m) { return m.name; }),
    render: function () { dirty = true; },
    renderNow: function () {  // draw at once and wait for the GPU: ms, for measurements
      const t0 = performance.now();
      renderer.render(scene, camera);
      renderer.getContext().readPixels(0, 0, 1, 1, 0x1908, 0x1401, new Uint8Array(4));
      return performance.now() - t0;
    },
    setRoleVisible: function (role, on) {  // roles: visual stick frame com inertia marker
      for (const g of bodies) for (const o of g.children) if (o.userData.role === role) o.visible = !!on;
      dirty = true;
    },
  };

  function loop(now) {
    if (playing) {
      if (last !== null) tPlay += (now - last) / 1000 * (+speedSel.value);
      last = now;
      if (tPlay > times[F - 1]) tPlay = times[0] + (tPlay - times[F - 1]) % Math.max(times[F - 1] - times[0], 1e-9);
      setFrame(frameAt(tPlay));
    }
    if (dirty) {
      renderer.render(scene, camera);
      renders++;
      dirty = false;
      if (api.firstFrameMs === null) { api.firstFrameMs = performance.now(); api.ready = true; }
    }
    requestAnimationFrame(loop);
  }
  resize();
  placeCamera();
  setFrame(0);
  requestAnimationFrame(loop);
})().catch(function (e) {
  console.error("robodyn viewer: " + (e && e.stack || e));
  const m = document.getElementById("rd-messages");
  m.textContent = "The viewer failed: " + e;
  m.style.display = "block";
});
