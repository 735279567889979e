"""rd.viz: the 3-D viewer page, checked in a real browser (headless Chromium via Playwright).

The browser is Debian's ``chromium`` (Playwright's own download is not used). Without it
these tests FAIL with the install command; they never skip. Screenshots are saved for a
person to look at in pytest's temporary folder (``pytest-current/viz0/`` under pytest's
base temporary directory, kept for the last three runs), not in the checkout.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from helpers import MujocoMap, erd_path, mujoco_site_packages
from robodyn import viz
from robodyn.viz.browser import INSTALL_HINT, find_chromium, headless_chromium
from robodyn.viz.scene import decimate, ellipsoid_semi_axes, resolve_mesh

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path()  # the screenshots' folder: set by the browser fixture (tmp_path_factory)
W, H = 800, 600


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    global ARTIFACTS
    if find_chromium() is None:
        pytest.fail(
            f"no Chromium browser found for the viewer tests; install it with: {INSTALL_HINT}"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("the viewer tests need Playwright: pip install -e '.[test]'")
    ARTIFACTS = tmp_path_factory.mktemp("viz")
    with headless_chromium(W, H) as ctx:
        yield ctx


class Page:
    """A viewer page open in the browser, with its console errors and requests recorded."""

    def __init__(self, ctx, path: Path, ready: bool = True):
        self.url = path.resolve().as_uri()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = ctx.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.route("**/*", self._route)  # anything fetched over a network is refused
        self.page.goto(self.url)
        if ready:
            self.page.wait_for_function("window.robodyn && window.robodyn.ready", timeout=60_000)

    def _route(self, route):
        if route.request.url == self.url:
            route.continue_()
        else:
            route.abort()

    def eval(self, js: str, *args):
        return self.page.evaluate(js, *args)

    def shot(self, name: str) -> np.ndarray:
        """Screenshot (H, W, 3) uint8 after the next drawn frame, saved as an artifact."""
        from PIL import Image

        self.eval("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        png = self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    def assert_offline_and_clean(self):
        assert self.errors == [], f"console errors: {self.errors}"
        assert self.requests == [self.url], f"requests besides the page: {self.requests}"

    def close(self):
        self.page.close()


def changed_fraction(a: np.ndarray, b: np.ndarray, tol: int = 24) -> float:
    return float(np.mean(np.abs(a.astype(int) - b.astype(int)).max(axis=2) > tol))


def magenta_centroid(img: np.ndarray) -> np.ndarray:
    """Pixel centre (x, y) of the end-effector marker (pure magenta, drawn on top)."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    ys, xs = np.nonzero((r > 200) & (b > 200) & (g < 70))
    assert len(xs) > 20, f"marker not found in the screenshot ({len(xs)} magenta pixels)"
    return np.array([xs.mean(), ys.mean()]) + 0.5  # pixel (i, j) covers [i, i + 1] x [j, j + 1]


def project(cam: dict, p_w: np.ndarray) -> np.ndarray:
    """Screen pixel (x, y) of a world point through the page's camera (column-major 4x4s)."""
    P = np.array(cam["projection"]).reshape(4, 4).T
    V = np.array(cam["view"]).reshape(4, 4).T
    clip = P @ V @ np.append(p_w, 1.0)
    ndc = clip[:3] / clip[3]
    return np.array([(ndc[0] + 1) / 2 * cam["width"], (1 - ndc[1]) / 2 * cam["height"]])


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.ModelWarning)
        return rd.load_urdf(path, invalid_inertia="keep", **kw)


# ------------------------------------------------------------------ pages in the browser
def test_bundled_panda_page_loads_offline_and_draws_the_robot(browser, tmp_path, rng):
    model = rd.models.load("panda")
    q = rd.neutral(model) + rng.uniform(-0.4, 0.4, model.nq)
    v = viz.show(model, q=q, out=tmp_path / "panda.html")
    assert v.path.is_file() and v.missing == []
    assert "<script src" not in v.html and "http://" not in v.html.split("<script>")[0]
    page = Page(browser, v.path)
    try:
        page.assert_offline_and_clean()
        counts = page.eval("robodyn.shapeCounts")
        assert counts["stick"] >= model.nb - 1 and counts["marker"] == 1  # no visuals: sticks
        img = page.shot("panda_bundled")
        assert img.shape == (H, W, 3) and img.std() > 10  # not blank
        page.eval("for (const r of ['stick', 'frame', 'marker']) robodyn.setRoleVisible(r, false)")
        empty = page.shot("panda_bundled_hidden")
        assert changed_fraction(img, empty) > 0.005  # the robot is drawn, not only the grid

        # the marker is where rd.fk puts the end effector, through the page's camera
        page.eval("for (const r of ['stick', 'frame', 'marker']) robodyn.setRoleVisible(r, true)")
        img = page.shot("panda_bundled_marker")
        p_ee = rd.fk(model, q, "ee")[:3, 3]
        np.testing.assert_allclose(page.eval("robodyn.markerWorld('ee')"), p_ee, atol=1e-5)
        cam = page.eval("robodyn.camera()")
        assert (cam["width"], cam["height"]) == (W, H)
        seen, expected = magenta_centroid(img), project(cam, p_ee)
        err = np.linalg.norm(seen - expected)
        assert err < 1.0, f"marker {err:.2f} px from rd.fk's end effector"
        # the page's own projection of its marker agrees
        np.testing.assert_allclose(page.eval("robodyn.markerScreen('ee')"), expected, atol=0.01)
        page.assert_offline_and_clean()
    finally:
        page.close()


def test_example_robot_data_ur5_with_meshes_matches_pinocchio(browser, tmp_path, rng):
    import pinocchio as pin

    path = erd_path("ur_description/urdf/ur5_robot")
    model = _load(path)
    q = rng.uniform(-1.0, 1.0, model.nq)
    v = viz.show(model, q=q, markers=["tool0"], out=tmp_path / "ur5.html")
    assert v.missing == [] and len(v.scene.meshes) == 7  # 7 DAE visuals
    page = Page(browser, v.path)
    try:
        page.assert_offline_and_clean()
        assert page.eval("robodyn.shapeCounts")["visual"] == len(model.visuals) == 7
        img = page.shot("ur5_meshes")
        page.eval("for (const r of ['visual', 'marker']) robodyn.setRoleVisible(r, false)")
        assert changed_fraction(img, page.shot("ur5_meshes_hidden")) > 0.01
        # the end effector through Pinocchio (its own URDF parser and kinematics)
        pm = pin.buildModelFromUrdf(path)
        pd = pm.createData()
        pin.framesForwardKinematics(pm, pd, q)  # both in the URDF's joint order
        p_ee = pd.oMf[pm.getFrameId("tool0")].translation
        cam = page.eval("robodyn.camera()")
        err = np.linalg.norm(magenta_centroid(img) - project(cam, p_ee))
        assert err < 1.0, f"marker {err:.2f} px from Pinocchio's tool0"
    finally:
        page.close()


def test_mjcf_robot_draws_its_geoms_where_mujoco_puts_them(browser, tmp_path, rng):
    """The Kinova Jaco arm of dm_control (6 STL meshes, 6 cylinders) through load_mjcf: every
    geom is drawn, and each mesh covers the pixel where MuJoCo (its own parse and
    kinematics) puts that geom's centre (its inertial frame's origin, inside the link)."""
    import mujoco

    path = os.path.join(mujoco_site_packages(), "dm_control/third_party/kinova/jaco_arm.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.ModelWarning)
        model = rd.load_mjcf(path)
    q = rng.uniform(-1.0, 1.0, model.nq)
    v = viz.show(model, q=q, out=tmp_path / "jaco.html")
    kinds = [g.kind for _, _, g in model.visuals]
    assert v.missing == [] and kinds.count("mesh") == 6 and kinds.count("cylinder") == 6
    assert len(v.scene.meshes) == 5  # two links share one STL file
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    d.qpos[:] = MujocoMap(model, m).qpos(q)
    mujoco.mj_kinematics(m, d)
    page = Page(browser, v.path)
    try:
        page.assert_offline_and_clean()
        counts = page.eval("robodyn.shapeCounts")
        assert counts["visual"] == len(model.visuals) == 12 and counts.get("stick", 0) == 0
        page.eval("for (const r of ['frame', 'marker']) robodyn.setRoleVisible(r, false)")
        img = page.shot("jaco_mjcf")
        page.eval("robodyn.setRoleVisible('visual', false)")
        empty = page.shot("jaco_mjcf_hidden")
        assert changed_fraction(img, empty) > 0.01
        cam = page.eval("robodyn.camera()")
        meshes = [i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_MESH]
        assert len(meshes) == 6
        for i in meshes:
            x, y = np.round(project(cam, d.geom_xpos[i])).astype(int)
            assert 2 <= x < W - 2 and 2 <= y < H - 2, (i, x, y)
            win = (slice(y - 2, y + 3), slice(x - 2, x + 3))
            assert changed_fraction(img[win], empty[win]) == 1.0, (m.geom(i).name, x, y)
    finally:
        page.close()


def test_talos_page_with_stl_meshes_loads(browser, tmp_path):
    model = _load(erd_path("talos_data/robots/talos_full_v2"), floating_base=True)
    q = rd.neutral(model)
    q[2] = 1.08
    v = viz.show(model, q=q, com=True, inertia=True, out=tmp_path / "talos.html")
    assert v.missing == []
    page = Page(browser, v.path)
    try:
        page.assert_offline_and_clean()
        counts = page.eval("robodyn.shapeCounts")
        assert counts["visual"] == len(model.visuals) == 53
        n_massive = int(np.sum(model.body_mass[1:] > 0))
        assert counts["com"] == counts["inertia"] == n_massive
        assert page.shot("talos").std() > 10
    finally:
        page.close()


def test_slider_moves_the_robot_and_the_readout_shows_the_samples(browser, tmp_path):
    model = rd.models.load("panda")
    t = np.linspace(0.0, 2.0, 201)
    Q = rd.neutral(model) + 0.8 * np.sin(np.outer(t, np.arange(1, model.nq + 1)))
    v = viz.show(model, trajectory=(t, Q), out=tmp_path / "traj.html")
    page = Page(browser, v.path)
    try:
        assert page.eval("robodyn.frameCount") == 201
        a = page.shot("slider_frame0")
        page.page.locator("#rd-slider").fill("150")
        b = page.shot("slider_frame150")
        assert page.eval("robodyn.frame") == 150
        assert changed_fraction(a, b) > 0.003  # the picture changed
        text = page.page.locator("#rd-time").inner_text()
        t_shown = float(re.search(r"t = ([-\d.]+) s", text).group(1))
        assert t_shown == pytest.approx(t[150], abs=5e-5)
        shown = [float(page.page.locator(f"#rd-q{k}").inner_text()) for k in range(model.nq)]
        np.testing.assert_allclose(shown, Q[150], atol=5e-5)  # printed with 4 decimals
        np.testing.assert_array_equal(page.eval("robodyn.q()"), Q[150].astype(np.float32))
        # the marker follows: fk at sample 150 through the camera
        cam = page.eval("robodyn.camera()")
        err = np.linalg.norm(magenta_centroid(b) - project(cam, rd.fk(model, Q[150], "ee")[:3, 3]))
        assert err < 1.0
        # play advances time; pause stops it
        page.page.locator("#rd-slider").fill("0")
        page.page.locator("#rd-play").click()
        page.page.wait_for_function("robodyn.frame > 10", timeout=20_000)
        page.page.locator("#rd-play").click()
        assert page.eval("robodyn.playing") is False
        page.assert_offline_and_clean()
    finally:
        page.close()


def _broken_robot(tmp_path: Path) -> Path:
    """Three links: a box, a mesh that does not exist, a mesh file that is not a mesh."""
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "garbage.stl").write_bytes(b"solid nothing here\x00\x01")
    urdf = tmp_path / "broken.urdf"
    inertial = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>'
    urdf.write_text(f"""<robot name="broken">
  <material name="red"><color rgba="0.9 0.1 0.1 1"/></material>
  <link name="base"><visual><geometry><box size="0.2 0.2 0.1"/></geometry>
    <material name="red"/></visual></link>
  <link name="arm">{inertial}<visual><geometry>
    <mesh filename="package://nowhere/meshes/missing_arm.stl"/></geometry></visual></link>
  <link name="hand">{inertial}<visual><geometry>
    <mesh filename="meshes/garbage.stl"/></geometry></visual></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
  </joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="hand"/>
    <origin xyz="0.4 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>
  </joint>
</robot>""")
    return urdf


def test_missing_and_unreadable_meshes_fall_back_and_are_listed(browser, tmp_path):
    model = _load(_broken_robot(tmp_path))
    v = viz.show(model, out=tmp_path / "broken.html")
    assert len(v.missing) == 2
    assert "missing_arm.stl" in v.missing[0] and "not found" in v.missing[0]
    assert "garbage.stl" in v.missing[1] and "could not be read" in v.missing[1]
    box = [s for s in v.scene.shapes if s["role"] == "visual"]
    assert len(box) == 1 and box[0]["kind"] == "box" and box[0]["rgba"] == (0.9, 0.1, 0.1, 1.0)
    sticks = {s["body"] for s in v.scene.shapes if s["role"] == "stick"}
    assert {model.body_id("arm"), model.body_id("hand")} <= sticks  # the fallback figure
    page = Page(browser, v.path)
    try:
        page.assert_offline_and_clean()
        listed = page.page.locator("#rd-missing li").all_inner_texts()
        assert len(listed) == 2 and "missing_arm.stl" in listed[0] and "garbage.stl" in listed[1]
        img = page.shot("missing_mesh_fallback")
        page.eval("robodyn.setRoleVisible('stick', false)")
        assert changed_fraction(img, page.shot("missing_mesh_fallback_hidden")) > 0.002
        # the red box is drawn
        r, g, b = (img[..., k].astype(int) for k in range(3))
        assert np.sum((r > 150) & (g < 80) & (b < 80)) > 200
    finally:
        page.close()


def test_a_huge_trajectory_is_decimated_with_a_note(browser, tmp_path):
    model = rd.models.load("panda")
    t = np.linspace(0.0, 30.0, 30_001)
    Q = rd.neutral(model) + 0.3 * np.sin(t)[:, None]
    v = viz.show(model, trajectory=(t, Q), out=tmp_path / "huge.html")
    assert len(v.scene.t) == viz.MAX_FRAMES and v.scene.t[0] == 0.0 and v.scene.t[-1] == 30.0
    page = Page(browser, v.path)
    try:
        assert page.eval("robodyn.frameCount") == viz.MAX_FRAMES
        note = page.page.locator("#rd-notes li").inner_text()
        assert "30001 samples shown as 10000 frames" in note
        page.assert_offline_and_clean()
    finally:
        page.close()


def test_notebook_display_runs_inside_its_iframe(browser, tmp_path):
    # what Jupyter does with _repr_html_: put the fragment in its own page
    v = viz.show(rd.models.load("ur5"), com=True)
    host = tmp_path / "notebook.html"
    host.write_text(f"<!DOCTYPE html><html><body><h1>cell</h1>{v._repr_html_()}</body></html>")
    page = Page(browser, host, ready=False)
    try:
        frame = page.page.frames[1]
        frame.wait_for_function("window.robodyn && window.robodyn.ready", timeout=60_000)
        assert frame.evaluate("robodyn.shapeCounts")["com"] == 6
        page.shot("notebook_iframe")
        # the page and, inside the iframe, nothing but about:srcdoc
        page.assert_offline_and_clean()
    finally:
        page.close()


# ------------------------------------------------------------------ Python side
def test_bad_input_names_the_sizes():
    model = rd.models.load("panda")
    with pytest.raises(ValueError, match=r"trajectory q has 6 columns .* nq = 7"):
        viz.show(model, trajectory=(np.arange(5.0), np.zeros((5, 6))))
    with pytest.raises(ValueError, match=r"q must have shape \(nq,\) = \(7,\).*\(3,\)"):
        viz.show(model, q=np.zeros(3))
    with pytest.raises(ValueError, match=r"trajectory t must have shape \(5,\)"):
        viz.show(model, trajectory=(np.arange(4.0), np.zeros((5, 7))))
    with pytest.raises(ValueError, match="finite"):
        viz.show(model, q=np.full(7, np.nan))
    with pytest.raises(ValueError, match="rollouts"):
        viz.show(model, trajectory=(np.arange(5.0), np.zeros((2, 5, 7))))


def test_simulated_trajectory_object_plays(tmp_path):
    model = rd.models.load("pendulum")
    traj = rd.simulate(model, np.array([1.0]), np.zeros(1), duration=0.5, dt=0.01)
    v = viz.show(model, trajectory=traj)
    np.testing.assert_array_equal(v.scene.t, traj.t)
    np.testing.assert_array_equal(v.scene.q, traj.q)
    # poses embedded = rd.body_poses, as [x, y, z, qx, qy, qz, qw]
    T = rd.body_poses(model, traj.q)
    np.testing.assert_allclose(v.scene.poses[..., :3], T[..., :3, 3], atol=1e-6)
    html = v._repr_html_()
    assert html.startswith("<iframe") and "srcdoc=" in html and "&lt;canvas" in html


def test_decimate_keeps_ends_and_budget():
    np.testing.assert_array_equal(decimate(5, 10), np.arange(5))
    idx = decimate(1001, 100)
    assert len(idx) == 100 and idx[0] == 0 and idx[-1] == 1000 and np.all(np.diff(idx) > 0)


def test_ellipsoid_semi_axes_of_a_solid_ellipsoid():
    # a solid ellipsoid of semi-axes (a, b, c): I_x = m (b^2 + c^2) / 5 (standard tables)
    m, abc = 2.5, np.array([0.3, 0.2, 0.1])
    I = m / 5 * np.array([abc[1] ** 2 + abc[2] ** 2, abc[0] ** 2 + abc[2] ** 2,
                          abc[0] ** 2 + abc[1] ** 2])  # fmt: skip
    np.testing.assert_allclose(ellipsoid_semi_axes(m, I), abc, rtol=1e-12)


def test_com_balls_and_inertia_ellipsoids_carry_the_bodies_inertia():
    model = rd.models.load("panda")
    v = viz.show(model, com=True, inertia=True)
    balls = [s for s in v.scene.shapes if s["role"] == "com"]
    ells = [s for s in v.scene.shapes if s["role"] == "inertia"]
    bodies = [b for b in range(1, model.nb) if model.body_mass[b] > 0]
    assert [s["body"] for s in balls] == [s["body"] for s in ells] == bodies
    m = model.body_mass[bodies]
    r = np.array([s["radius"] for s in balls])
    np.testing.assert_allclose(r**3 / m, r[0] ** 3 / m[0], rtol=1e-12)  # volume ~ mass
    for s, b in zip(ells, bodies):
        T = np.array(s["T"]).reshape(4, 4).T
        np.testing.assert_allclose(T[:3, 3], model.body_com[b], atol=1e-12)
        a, bb, c = s["size"]
        mb = model.body_mass[b]
        # a solid ellipsoid: I = diag(m (b^2 + c^2), m (a^2 + c^2), m (a^2 + b^2)) / 5 on its axes
        I_e = mb / 5 * np.diag([bb**2 + c**2, a**2 + c**2, a**2 + bb**2])
        R = T[:3, :3]
        np.testing.assert_allclose(R @ I_e @ R.T, model.body_inertia[b], atol=1e-9)


def test_mesh_paths_resolve_through_the_search_path_only(tmp_path):
    pkg = tmp_path / "share" / "my_robot" / "meshes"
    pkg.mkdir(parents=True)
    (pkg / "a.stl").write_text("x")
    found = resolve_mesh("package://my_robot/meshes/a.stl", None, [tmp_path / "share"])
    assert found == pkg / "a.stl"
    # a search folder that is the package itself
    assert resolve_mesh("package://my_robot/meshes/a.stl", None, [pkg.parent]) == pkg / "a.stl"
    urdf = tmp_path / "share" / "my_robot" / "urdf" / "r.urdf"
    urdf.parent.mkdir()
    # ../ out of the URDF's folder: only into its ROS package (a package.xml marks it)
    with pytest.raises(PermissionError, match="outside the allowed roots"):
        resolve_mesh("../meshes/a.stl", str(urdf), [])
    (pkg.parent / "package.xml").write_text("<package><name>my_robot</name></package>")
    assert resolve_mesh("../meshes/a.stl", str(urdf), []) == pkg / "a.stl"
    with pytest.raises(FileNotFoundError, match="network"):
        resolve_mesh("https://example.com/a.stl", str(urdf), [])
    with pytest.raises(FileNotFoundError, match="not found"):
        resolve_mesh("package://other/a.stl", None, [tmp_path])


def test_stl_obj_meshes_and_urdf_colours(tmp_path):
    import trimesh

    box = trimesh.creation.box(extents=(0.1, 0.2, 0.3))
    box.export(tmp_path / "box.stl")
    box.export(tmp_path / "box.obj")
    urdf = tmp_path / "two.urdf"
    urdf.write_text("""<robot name="two">
  <link name="a"><visual><geometry><mesh filename="box.stl" scale="2 2 2"/></geometry>
    <material name="g"><color rgba="0 1 0 0.5"/></material></visual></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>
    <visual><geometry><mesh filename="file://box.obj"/></geometry></visual>
    <visual><origin xyz="0 0 1"/><geometry><cylinder radius="0.1" length="0.5"/></geometry></visual>
  </link>
  <joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>
</robot>""")
    model = _load(urdf)
    v = viz.show(model)
    assert v.missing == [] and len(v.scene.meshes) == 2
    stl, obj = v.scene.meshes
    np.testing.assert_allclose(np.ptp(stl["positions"], axis=0), [0.2, 0.4, 0.6], atol=1e-6)
    np.testing.assert_allclose(np.ptp(obj["positions"], axis=0), [0.1, 0.2, 0.3], atol=1e-6)
    assert len(stl["indices"]) == len(obj["indices"]) == 12  # a box: 12 triangles
    assert len(stl["positions"]) == 8  # the STL's 36 corners merged into the box's 8
    vis = [s for s in v.scene.shapes if s["role"] == "visual"]
    assert vis[0]["rgba"] == (0.0, 1.0, 0.0, 0.5)
    cyl = vis[2]
    T = np.array(cyl["T"]).reshape(4, 4).T
    # URDF cylinder along z; three.js's along y: the shape's y axis is the body's z
    np.testing.assert_allclose(T[:3, 1], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [0, 0, 1], atol=1e-12)


def test_cli_view_and_simulate_view(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    run = tmp_path / "run.npz"
    cmd = [sys.executable, "-m", "robodyn.cli"]
    out = subprocess.run(
        cmd + ["simulate", "pendulum", "--duration", "0.2", "--out", str(run),
               "--view", str(tmp_path / "sim.html")],
        capture_output=True, text=True, env=env, check=True,
    ).stdout  # fmt: skip
    assert "view:" in out and (tmp_path / "sim.html").stat().st_size > 500_000
    out = subprocess.run(
        cmd + ["view", "pendulum", "--trajectory", str(run), "--out", str(tmp_path / "v.html"),
               "--max-frames", "50"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout  # fmt: skip
    assert "50 frames" in out and "note: trajectory of 201 samples" in out
    bad = subprocess.run(
        cmd + ["view", "panda", "--q", "1", "2", "--out", str(tmp_path / "x.html")],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert bad.returncode == 2 and "expected nq = 7 numbers, got 2" in bad.stderr
