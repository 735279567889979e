"""rd.viz bounds what it reads before it reads it (issue 27 s.5).

Hostile meshes made here: a 3 KB DAE whose nested instances make 10^8 triangles, a glTF
whose nodes instance one mesh 10^4 times, a binary STL whose header and size say 3,000,000
triangles (a sparse file), a zip saved as ``.dae`` (pycollada unzips what it is given).
Each is refused before memory is spent: the peak traced by tracemalloc stays below a few MB
(numpy's buffers are traced too). Meshes over the page's triangle budget are reduced, and
the page says which.
"""

from __future__ import annotations

import json
import os
import tracemalloc
import zipfile

import numpy as np
import pytest

import robodyn as rd
from helpers import mesh_chain_urdf
from robodyn import viz
from robodyn.viz.meshes import cluster_decimate, probe_mesh

MB = 1e6


def robot(folder, names) -> rd.Model:
    """A URDF in ``folder`` with one link per mesh name (repeats allowed)."""
    urdf = folder / "r.urdf"
    urdf.write_text(mesh_chain_urdf(names))
    return rd.load_urdf(str(urdf))


def nested_dae(levels: int, fan: int = 10) -> str:
    """A COLLADA file: one 1-triangle geometry, node n0 instances it, node n_k instances
    n_(k-1) ``fan`` times: fan**levels triangles once every instance is built."""
    nodes = ['<node id="n0"><instance_geometry url="#tri"/></node>']
    for k in range(1, levels + 1):
        nodes.append(f'<node id="n{k}">' + f'<instance_node url="#n{k - 1}"/>' * fan + "</node>")
    return f"""<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<library_geometries><geometry id="tri"><mesh>
<source id="pos"><float_array id="pa" count="9">0 0 0 1 0 0 0 1 0</float_array>
<technique_common><accessor source="#pa" count="3" stride="3"><param name="X" type="float"/>
<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common>
</source><vertices id="v"><input semantic="POSITION" source="#pos"/></vertices>
<triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
</mesh></geometry></library_geometries>
<library_nodes>{"".join(nodes)}</library_nodes>
<library_visual_scenes><visual_scene id="s"><node id="root"><instance_node url="#n{levels}"/>
</node></visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#s"/></scene>
</COLLADA>"""


def peak_of(fn):
    """(result, peak bytes traced) of fn()."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ refused before reading
def test_dae_of_nested_instances_is_left_out_before_instancing(tmp_path):
    (tmp_path / "bomb.dae").write_text(nested_dae(8))  # 10^8 triangles
    assert (tmp_path / "bomb.dae").stat().st_size < 3500
    model = robot(tmp_path, ["bomb.dae"])
    v, peak = peak_of(lambda: viz.show(model))
    assert v.missing == [
        "body 'l0': bomb.dae: left out: 100,000,000 triangles, more than the 2,000,000 read "
        "for one mesh (raise max_triangles= to read it)"
    ]
    assert peak < 8 * MB, f"{peak / MB:.1f} MB traced"


def test_dae_estimate_is_the_count_the_reader_builds(tmp_path):
    # 10^3 instances: read, and the triangles drawn are the estimate
    (tmp_path / "k.dae").write_text(nested_dae(3))
    assert probe_mesh(tmp_path / "k.dae").triangles == 1000
    v = viz.show(robot(tmp_path, ["k.dae"]))
    assert v.missing == [] and len(v.scene.meshes[0]["indices"]) == 1000
    # an instance of an ancestor is a cycle, refused without recursing
    (tmp_path / "loop.dae").write_text(nested_dae(2).replace('"#n0"', '"#n2"', 1))
    v = viz.show(robot(tmp_path, ["loop.dae"]))
    assert v.missing == ["body 'l0': loop.dae: could not be read (DAE nodes instance themselves)"]


def test_gltf_nodes_instancing_one_mesh_are_counted(tmp_path):
    n_tri, n_nodes = 300, 10_000  # 3,000,000 triangles drawn from a 10 KB buffer
    V = np.random.default_rng(0).uniform(size=(3 * n_tri, 3)).astype("<f4")
    (tmp_path / "m.bin").write_bytes(V.tobytes())
    gltf = {"asset": {"version": "2.0"}, "buffers": [{"uri": "m.bin", "byteLength": V.nbytes}],
            "bufferViews": [{"buffer": 0, "byteLength": V.nbytes}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(V),
                           "type": "VEC3"}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "nodes": [{"mesh": 0, "translation": [k, 0, 0]} for k in range(n_nodes)],
            "scenes": [{"nodes": list(range(n_nodes))}]}  # fmt: skip
    (tmp_path / "many.gltf").write_text(json.dumps(gltf))
    model = robot(tmp_path, ["many.gltf"])
    v, peak = peak_of(lambda: viz.show(model))
    assert v.missing == [
        "body 'l0': many.gltf: left out: 3,000,000 triangles, more than the 2,000,000 read "
        "for one mesh (raise max_triangles= to read it)"
    ]
    assert peak < 8 * MB, f"{peak / MB:.1f} MB traced"  # the JSON parsed, nothing built


def test_stl_over_the_read_limit_is_not_read(tmp_path):
    n = 3_000_000  # a binary STL whose header and size agree: 150 MB, sparse on disk
    path = tmp_path / "huge.stl"
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + np.uint32(n).tobytes())
        fh.truncate(84 + 50 * n)
    model = robot(tmp_path, ["huge.stl"])
    v, peak = peak_of(lambda: viz.show(model))
    assert v.missing == [
        "body 'l0': huge.stl: left out: 3,000,000 triangles, more than the 2,000,000 read "
        "for one mesh (raise max_triangles= to read it)"
    ]
    assert peak < 8 * MB, f"{peak / MB:.1f} MB traced"


def test_zip_archives_are_not_unpacked(tmp_path):
    # 64 MB of zeros deflate to ~64 KB; pycollada unzips a .dae that is a zip
    for name in ("zipped.dae", "zipped.zip"):
        with zipfile.ZipFile(tmp_path / name, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("inner.dae", b"\0" * (64 << 20))
    assert (tmp_path / "zipped.dae").stat().st_size < 200_000
    model = robot(tmp_path, ["zipped.dae", "zipped.zip"])
    v, peak = peak_of(lambda: viz.show(model))
    assert v.missing == [
        "body 'l0': zipped.dae: could not be read (DAE: not XML)",
        "body 'l1': zipped.zip: could not be read (.zip files are not read: the viewer reads "
        "STL, OBJ, DAE, PLY, OFF, glTF and GLB)",
    ]
    assert peak < 8 * MB, f"{peak / MB:.1f} MB traced"


def test_dae_with_a_dtd_is_refused(tmp_path):
    dtd = '<!DOCTYPE C [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    dae = nested_dae(1).replace('<?xml version="1.0"?>', '<?xml version="1.0"?>\n' + dtd)
    (tmp_path / "dtd.dae").write_text(dae)
    v = viz.show(robot(tmp_path, ["dtd.dae"]))
    assert v.missing == ["body 'l0': dtd.dae: could not be read (DAE: a DTD or entity)"]


# ------------------------------------------------------------------ the page's budget
def sphere_stl(path, subdivisions: int):
    import trimesh

    trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.0).export(path)


def test_meshes_over_the_budget_are_reduced_and_the_page_says_so(tmp_path):
    sphere_stl(tmp_path / "a.stl", 4)  # 5120 triangles, drawn twice
    sphere_stl(tmp_path / "b.stl", 3)  # 1280 triangles
    model = robot(tmp_path, ["a.stl", "a.stl", "b.stl"])
    v = viz.show(model, max_triangles=3000)
    a, b = v.scene.meshes
    drawn = 2 * len(a["indices"]) + len(b["indices"])
    assert drawn <= 3000 and drawn >= 0.6 * 3000  # each mesh 0.6-1 times its share
    assert v.notes == [
        f"a.stl: 5,120 triangles reduced to {len(a['indices']):,} (page budget "
        "max_triangles=3,000)",
        f"b.stl: 1,280 triangles reduced to {len(b['indices']):,} (page budget "
        "max_triangles=3,000)",
    ]
    assert all(n in v.html for n in v.notes)  # the page lists them
    # still the unit sphere: clustered vertices are means of points on it
    for m in (a, b):
        np.testing.assert_allclose(np.ptp(m["positions"], axis=0), 2.0, rtol=0.05)
    with pytest.raises(ValueError, match="max_triangles must be a positive integer"):
        viz.show(model, max_triangles=0)


def test_cluster_decimate_keeps_the_surface():
    import trimesh

    s = trimesh.creation.icosphere(subdivisions=5)  # 20480 triangles on the unit sphere
    V, F, C = cluster_decimate(s.vertices, s.faces, np.full((len(s.vertices), 3), 200, np.uint8),
                               2000)  # fmt: skip
    assert 0.6 * 2000 <= len(F) <= 2000 and F.max() < len(V) and C.shape == V.shape
    # a vertex is the mean of sphere points in one grid cell of side h: it lies inside the
    # sphere by at most the sagitta of the cell's diagonal, 3 h^2 / 8 (h ~ sqrt(2 A / t))
    h = np.sqrt(2 * 4 * np.pi / 2000)
    r = np.linalg.norm(V, axis=1)
    assert r.max() <= 1 + 1e-12 and r.min() >= 1 - 3 * h**2 / 8
    assert np.all(C == 200)
    # every triangle is a real one: no repeated corner, no face twice
    assert np.all((F[:, 0] != F[:, 1]) & (F[:, 1] != F[:, 2]) & (F[:, 0] != F[:, 2]))
    assert len(np.unique(np.sort(F, axis=1), axis=0)) == len(F)


def test_cli_max_triangles(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    sphere_stl(tmp_path / "a.stl", 4)
    robot(tmp_path, ["a.stl"])
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    cmd = [sys.executable, "-m", "robodyn.cli", "view", str(tmp_path / "r.urdf"), "--out"]
    run = subprocess.run(cmd + [str(tmp_path / "v.html"), "--max-triangles", "1000"],
                         capture_output=True, text=True, env=env, check=True)  # fmt: skip
    assert "note: a.stl: 5,120 triangles reduced to" in run.stdout
    bad = subprocess.run(cmd + [str(tmp_path / "w.html"), "--max-triangles", "0"],
                         capture_output=True, text=True, env=env)  # fmt: skip
    assert bad.returncode == 2 and "--max-triangles" in bad.stderr
