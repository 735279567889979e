"""rd.viz reads mesh files only inside the allowed roots (issue 27 s.3).

Every fixture is hostile and written here: mesh names that climb out of the URDF's folder
(``../``, absolute, ``file://``, ``package://pkg/../..``), a symbolic link in the package
pointing out, a glTF whose buffer and an OBJ whose ``mtllib`` climb out of the mesh's own
folder. Outside the package sits a "secret" mesh and secret bytes; each test decodes the
written page's arrays (base64, deflate, byte shuffle, as the page does) and looks for them.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from helpers import mesh_chain_urdf
from robodyn import viz
from robodyn.viz.browser import INSTALL_HINT, find_chromium, headless_chromium

ROOT = Path(__file__).resolve().parents[1]
# a secret triangle whose coordinates are recognisable in float32
SECRET_XYZ = np.array([[111.125, 222.25, 333.5], [444.75, 555.0, 666.25], [777.5, 888.75, 999.0]])
# 36 secret bytes = 9 float32 of moderate size ('A'..'I' as the high byte): 3 vertices that
# a reader following the buffer URI would draw as a triangle, kept apart by the merge
SECRET_BIN = b"".join(b"pw" + bytes([0x30 + k, 0x41 + k]) for k in range(9))
SECRET_KD = "0.123 0.456 0.789"  # an OBJ material colour: (31, 116, 201) as bytes


def stl_bytes(V: np.ndarray) -> bytes:
    """A binary STL of the triangles in V (3k, 3), written by hand (no library)."""
    rec = np.zeros(len(V) // 3, dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = V.reshape(-1, 3, 3)
    return b"\0" * 80 + np.uint32(len(rec)).tobytes() + rec.tobytes()


def robot(names: list[str]) -> str:
    """A URDF chain with one link per mesh name, as written."""
    return mesh_chain_urdf(names, name="hostile", offset=0.1)


@pytest.fixture
def tree(tmp_path):
    """tmp/secret/ (outside everything), tmp/share/secret.bin and secret.mtl (inside the
    search root but outside the mesh folder), tmp/share/pkg/{urdf,meshes}/ (the package)."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "secret.stl").write_bytes(stl_bytes(SECRET_XYZ))
    share = tmp_path / "share"
    meshes = share / "pkg" / "meshes"
    meshes.mkdir(parents=True)
    (share / "pkg" / "urdf").mkdir()
    (share / "secret.bin").write_bytes(SECRET_BIN)
    (share / "secret.mtl").write_text(f"newmtl leak\nKd {SECRET_KD}\n")
    ok = np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]], float)
    (meshes / "ok.stl").write_bytes(stl_bytes(ok))
    os.symlink(secret / "secret.stl", meshes / "link.stl")
    gltf = {
        "asset": {"version": "2.0"},
        "buffers": [{"uri": "../../secret.bin", "byteLength": 36}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 4}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }
    (meshes / "evil.gltf").write_text(json.dumps(gltf))
    (meshes / "evil.obj").write_text(
        "mtllib ../../secret.mtl\nusemtl leak\nv 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nf 1 2 3\n"
    )
    return tmp_path


def load(tmp: Path, names: list[str]) -> rd.Model:
    urdf = tmp / "share" / "pkg" / "urdf" / "robot.urdf"
    urdf.write_text(robot(names))
    return rd.load_urdf(str(urdf))


def page_arrays(html: str) -> list[bytes]:
    """The raw bytes of every mesh array embedded in a written page (decoded as the page's
    script does: base64, then deflate, then the byte planes put back together)."""
    m = re.search(r'<script id="rd-scene" type="application/json">(.*?)</script>', html, re.S)
    assert m, "no scene in the page"
    scene = json.loads(m.group(1))
    out = []
    for mesh in scene["meshes"]:
        for key, size in (("positions", 4), ("indices", 4), ("colors", 1)):
            if mesh[key] is None:
                continue
            planes = np.frombuffer(zlib.decompress(base64.b64decode(mesh[key])), np.uint8)
            out.append(planes.reshape(size, -1).T.tobytes())
    return out


def leaked(html: str) -> list[str]:
    """Which secrets the page's mesh arrays carry."""
    found = []
    blobs = page_arrays(html)
    for v in SECRET_XYZ.astype("<f4"):
        if any(v.tobytes() in b for b in blobs):
            found.append(f"secret STL vertex {v}")
    for k in range(0, 36, 12):
        if any(SECRET_BIN[k : k + 12] in b for b in blobs):
            found.append(f"secret.bin bytes {k}..{k + 12}")
    if any(bytes([31, 116, 201]) in b for b in blobs):
        found.append("secret.mtl colour")
    return found


# ------------------------------------------------------------------ names in the URDF
HOSTILE_RELATIVE = [
    "../../../secret/secret.stl",  # climbs out of the URDF's folder
    "package://pkg/../../secret/secret.stl",  # climbs out of the package
    "package://pkg/meshes/link.stl",  # a symbolic link in the package pointing out
    "../../../secret/nothing_here.stl",  # outside and missing: said the same way
]


def test_relative_names_that_climb_out_are_not_read(tree):
    model = load(tree, ["package://pkg/meshes/ok.stl", *HOSTILE_RELATIVE])
    out = tree / "share" / "view.html"
    v = viz.show(model, search_path=[tree / "share"], out=out)
    html = out.read_text(encoding="utf-8")
    assert leaked(html) == []
    assert len(v.scene.meshes) == 1 and v.scene.meshes[0]["name"] == "package://pkg/meshes/ok.stl"
    # named as the URDF writes them; one reason whether the file exists or not
    assert v.missing == [f"body 'l{k + 1}': {name}: outside the allowed roots"
                         for k, name in enumerate(HOSTILE_RELATIVE)]  # fmt: skip
    assert str(tree) not in html  # no resolved path, no searched folder
    assert v.scene.missing == v.missing and "outside the allowed roots" in html


def test_absolute_and_file_url_names_are_not_read(tree):
    secret = tree / "secret" / "secret.stl"
    names = [str(secret), f"file://{secret}", "/etc/passwd", "file:///etc/passwd"]
    model = load(tree, names)
    v = viz.show(model, search_path=[tree / "share"])
    assert leaked(v.html) == [] and v.scene.meshes == []
    assert all(line.endswith(": outside the allowed roots") for line in v.missing)
    assert len(v.missing) == 4


def test_allow_outside_reads_them_and_the_roots_are_the_documented_ones(tree):
    secret = tree / "secret" / "secret.stl"
    model = load(tree, [str(secret), "package://pkg/meshes/link.stl"])
    v = viz.show(model, search_path=[tree / "share"], allow_outside=True)
    assert v.missing == [] and len(leaked(v.html)) == 3  # the 3 secret vertices: drawn
    # the roots: search_path, $ROS_PACKAGE_PATH, the URDF's folder, its package (package.xml)
    urdf = tree / "share" / "pkg" / "urdf" / "robot.urdf"
    assert viz.mesh_roots(str(urdf), [tree / "share"]) == [tree / "share", urdf.parent]
    (tree / "share" / "pkg" / "package.xml").write_text("<package><name>pkg</name></package>")
    assert viz.mesh_roots(str(urdf), []) == [urdf.parent, tree / "share" / "pkg"]
    # its package resolves package://pkg without search_path; ../ stays inside it
    found = viz.resolve_mesh("package://pkg/meshes/ok.stl", str(urdf))
    assert found == tree / "share" / "pkg" / "meshes" / "ok.stl"
    assert viz.resolve_mesh("../meshes/ok.stl", str(urdf)) == found
    with pytest.raises(PermissionError, match="outside the allowed roots"):
        viz.resolve_mesh("../../secret.bin", str(urdf))


# ------------------------------------------------------------------ a mesh's own references
@pytest.fixture(params=["installed", "permissive"])
def trimesh_default(request, monkeypatch):
    """trimesh as installed (5.x confines its default resolver), and with its default
    resolver made to follow any path (what trimesh 4.x did): robodyn must not rely on it."""
    if request.param == "permissive":
        import trimesh.resolvers

        init = trimesh.resolvers.FilePathResolver.__init__

        def anywhere(self, source, allow_anywhere=True):
            init(self, source, allow_anywhere=True)

        monkeypatch.setattr(trimesh.resolvers.FilePathResolver, "__init__", anywhere)
    return request.param


def test_gltf_buffer_climbing_out_of_its_folder_is_not_read(tree, trimesh_default):
    model = load(tree, ["package://pkg/meshes/evil.gltf"])
    out = tree / "share" / "gltf.html"
    v = viz.show(model, search_path=[tree / "share"], out=out)
    assert leaked(out.read_text(encoding="utf-8")) == []
    assert v.scene.meshes == []
    assert v.missing == ["body 'l0': package://pkg/meshes/evil.gltf: could not be read"]
    assert v.notes == [
        "package://pkg/meshes/evil.gltf: ../../secret.bin not read (outside the mesh's folder)"
    ]


def test_obj_mtllib_climbing_out_of_its_folder_is_not_read(tree, trimesh_default):
    model = load(tree, ["package://pkg/meshes/evil.obj"])
    v = viz.show(model, search_path=[tree / "share"])
    assert leaked(v.html) == []
    assert v.missing == [] and len(v.scene.meshes) == 1  # drawn, without the material
    assert v.scene.meshes[0]["colors"] is None
    assert v.notes == [
        "package://pkg/meshes/evil.obj: ../../secret.mtl not read (outside the mesh's folder)"
    ]


def test_mesh_references_inside_its_folder_are_read(tmp_path):
    # the same glTF and OBJ with their buffer and material beside them: drawn in full
    (tmp_path / "m.bin").write_bytes(np.array([0, 0, 0, 1, 0, 0, 0, 1, 0], "<f4").tobytes())
    gltf = {"asset": {"version": "2.0"}, "buffers": [{"uri": "m.bin", "byteLength": 36}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}]}  # fmt: skip
    (tmp_path / "m.gltf").write_text(json.dumps(gltf))
    (tmp_path / "m.mtl").write_text("newmtl red\nKd 1 0 0\n")
    obj = "mtllib m.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
    (tmp_path / "m.obj").write_text(obj)
    urdf = tmp_path / "r.urdf"
    urdf.write_text(robot(["m.gltf", "m.obj"]))
    v = viz.show(rd.load_urdf(str(urdf)))
    assert v.missing == [] and v.notes == []
    gl, obj = v.scene.meshes
    np.testing.assert_array_equal(gl["positions"], [[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(obj["colors"], np.tile([255, 0, 0], (3, 1)))


# ------------------------------------------------------------------ command line, page
def test_cli_view_refuses_outside_and_allow_outside_reads(tree):
    urdf = tree / "share" / "pkg" / "urdf" / "robot.urdf"
    urdf.write_text(robot(["package://pkg/meshes/link.stl"]))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "robodyn.cli", "view", str(urdf), "--mesh-path",
           str(tree / "share")]  # fmt: skip
    run = subprocess.run(cmd + ["--out", str(tree / "a.html")], capture_output=True, text=True,
                         env=env, check=True)  # fmt: skip
    assert "not drawn: body 'l0': package://pkg/meshes/link.stl: outside the allowed roots" in (
        run.stdout)  # fmt: skip
    assert "add its folder with --mesh-path, or pass --allow-outside" in run.stdout
    assert leaked((tree / "a.html").read_text(encoding="utf-8")) == []
    run = subprocess.run(cmd + ["--out", str(tree / "b.html"), "--allow-outside"],
                         capture_output=True, text=True, env=env, check=True)  # fmt: skip
    assert "not drawn" not in run.stdout
    assert len(leaked((tree / "b.html").read_text(encoding="utf-8"))) == 3


def test_save_and_out_never_overwrite_without_asking(tree):
    model = load(tree, ["package://pkg/meshes/ok.stl"])
    out = tree / "v.html"
    out.write_text("keep me")
    with pytest.raises(FileExistsError, match="v.html"):
        viz.show(model, out=out)
    v = viz.show(model)
    with pytest.raises(FileExistsError, match="v.html"):
        v.save(out)
    assert out.read_text() == "keep me"
    assert v.save(out, overwrite=True) == out and out.read_text(encoding="utf-8") == v.html


def test_page_lists_outside_meshes_by_their_urdf_names(tree):
    if find_chromium() is None:
        pytest.fail(f"no Chromium browser found for the viewer tests; install: {INSTALL_HINT}")
    model = load(tree, ["package://pkg/meshes/ok.stl", *HOSTILE_RELATIVE])
    out = tree / "share" / "page.html"
    viz.show(model, search_path=[tree / "share"], out=out)
    url = out.resolve().as_uri()
    with headless_chromium(400, 300) as ctx:
        page = ctx.new_page()
        requests, errors = [], []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_function("window.robodyn && window.robodyn.ready", timeout=60_000)
        listed = page.locator("#rd-missing li").all_inner_texts()
        assert page.evaluate("robodyn.shapeCounts")["visual"] == 1
    assert listed == [f"body 'l{k + 1}': {n}: outside the allowed roots"
                      for k, n in enumerate(HOSTILE_RELATIVE)]  # fmt: skip
    assert requests == [url] and errors == []


def test_confined_resolver_reads_only_plain_files_in_its_folder(tmp_path):
    from robodyn.viz.meshes import ConfinedResolver

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.bin").write_bytes(b"\1" * 40)
    (tmp_path / "b.bin").write_bytes(b"\2" * 40)
    (tmp_path / "tex.dat").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)  # an image, renamed
    (tmp_path / "tex.png").write_bytes(b"\0" * 40)
    r = ConfinedResolver(tmp_path, max_bytes=100)
    for name in ("tex.dat", "tex.png", "missing.bin"):  # textures: never read, never noted
        with pytest.raises(FileNotFoundError):
            r.get(name)
    assert r.get("sub/a.bin") == b"\1" * 40 and r.get(b"b.bin") == b"\2" * 40
    for name in ("../x.bin", "/etc/passwd", "file:///etc/passwd", "http://example.com/a.bin"):
        with pytest.raises(FileNotFoundError):
            r.get(name)
    with pytest.raises(FileNotFoundError):
        r.get("sub/a.bin")  # 120 bytes: over the budget of 100 for all references
    assert [why for _, why in r.refused] == [
        "outside the mesh's folder", "outside the mesh's folder", "a URL or URI scheme",
        "a URL or URI scheme", "over the 100 bytes read for a mesh's references",
    ]  # fmt: skip
    with pytest.raises(PermissionError):
        r.write("c.bin", b"")
    sub = ConfinedResolver(tmp_path / "sub", max_bytes=100)
    with pytest.raises(FileNotFoundError):
        sub.get("../b.bin")  # the parent folder is outside the sub folder's mesh


def test_glb_with_an_embedded_texture_is_drawn_without_reading_it(tmp_path):
    # the page draws no texture: the GLB is handed to the reader without its images
    import trimesh
    from PIL import Image

    box = trimesh.creation.box(extents=(0.1, 0.2, 0.3))
    uv = np.random.default_rng(0).uniform(size=(len(box.vertices), 2))
    box.visual = trimesh.visual.TextureVisuals(uv=uv, image=Image.new("RGB", (8, 8), "green"))
    box.export(tmp_path / "b.glb")
    assert b"image/png" in (tmp_path / "b.glb").read_bytes()
    urdf = tmp_path / "r.urdf"
    urdf.write_text(robot(["b.glb"]))
    v = viz.show(rd.load_urdf(str(urdf)))
    assert v.missing == [] and v.notes == [] and len(v.scene.meshes[0]["indices"]) == 12
    np.testing.assert_allclose(np.ptp(v.scene.meshes[0]["positions"], 0), [0.1, 0.2, 0.3])


def test_simulate_view_takes_the_viewers_roots_and_budget(tree, capsys):
    """``robodyn simulate --view`` draws with the same rules as ``robodyn view``: a mesh
    outside the roots is left out unless --allow-outside, --mesh-path adds a root."""
    from robodyn.cli import main

    urdf = tree / "share" / "pkg" / "urdf" / "robot.urdf"
    urdf.write_text(robot(["package://pkg/meshes/link.stl"]))
    base = ["simulate", str(urdf), "--duration", "0.01", "--mesh-path", str(tree / "share")]
    assert main([*base, "--view", str(tree / "a.html")]) == 0
    assert "outside the allowed roots" in capsys.readouterr().out
    assert leaked((tree / "a.html").read_text(encoding="utf-8")) == []
    assert main([*base, "--view", str(tree / "b.html"), "--allow-outside",
                 "--max-triangles", "100000"]) == 0  # fmt: skip
    assert "not drawn" not in capsys.readouterr().out
    assert len(leaked((tree / "b.html").read_text(encoding="utf-8"))) == 3
