"""Files robodyn reads and writes for data (issue 27 s.8): identification CSV and trajectories.

Every fixture is written by the test itself (tmp_path): CSV text typed here, in the
dialects spreadsheets write (a UTF-8 byte order mark, quoted names, ``;`` or tab
separators, CRLF lines), and ``.npz`` archives and ``.partial`` folders built with
numpy / zipfile / robodyn's own stream writer, then tampered with. The numbers a good file
must give are typed in the test; a bad file must give an error naming the file and what is
wrong (the line and column of a CSV cell, the field of a trajectory), never silently
wrong numbers.
"""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest

import robodyn as rd
from robodyn.ident import Experiment, load_csv, save_csv

HEADER = ["t", "q[joint1]", "q[joint2]", "v[joint1]", "v[joint2]", "a[joint1]", "a[joint2]",
          "tau[joint1]", "tau[joint2]"]  # fmt: skip
ROWS = [  # typed: t, q1, q2, v1, v2, a1, a2, tau1, tau2
    [0.0, 0.1, -0.2, 1.5, 0.25, -3.0, 2.0, 10.5, -4.25],
    [0.01, 0.115, -0.1975, 1.47, 0.27, -2.9, 1.9, 10.25, -4.0],
    [0.02, 0.1297, -0.1948, 1.441, 0.289, -2.8, 1.8, 1e-3, 2.5e2],
]


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")  # joints 'joint1', 'joint2'


def _write(path, text: str, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def _table(sep=",", quote=False, eol="\n", header=HEADER, rows=ROWS):
    def cell(x):
        return f'"{x}"' if quote else str(x)

    lines = [sep.join(cell(h) for h in header)]
    lines += [sep.join(repr(float(x)) if not isinstance(x, str) else x for x in r) for r in rows]
    return eol.join(lines) + eol


def _assert_rows(ex, rows=ROWS):
    want = np.array(rows, dtype=float)
    np.testing.assert_array_equal(ex.t, want[:, 0])
    np.testing.assert_array_equal(ex.q, want[:, 1:3])
    np.testing.assert_array_equal(ex.v, want[:, 3:5])
    np.testing.assert_array_equal(ex.a, want[:, 5:7])
    np.testing.assert_array_equal(ex.tau, want[:, 7:9])


# ------------------------------------------------------------------ CSV: dialects
@pytest.mark.parametrize(
    "name, text",
    [
        ("plain", _table()),
        ("excel-utf8-bom-crlf", "\ufeff" + _table(eol="\r\n")),
        ("quoted-names", _table(quote=True)),
        ("semicolons", _table(sep=";")),
        ("semicolons-quoted-bom", "\ufeff" + _table(sep=";", quote=True, eol="\r\n")),
        ("tabs", _table(sep="\t")),
        ("spaces-after-commas", _table(sep=", ")),
    ],
)
def test_a_csv_in_the_dialects_spreadsheets_write_reads_the_typed_numbers(
    arm, tmp_path, name, text
):
    # before: the BOM, the quotes or the ';' made the header's first name '\ufefft', '"t"'
    # or the whole line: "missing column t"
    ex = load_csv(_write(tmp_path / f"{name}.csv", text), arm)
    _assert_rows(ex)


def test_columns_in_any_order_and_extra_columns_are_ignored(arm, tmp_path):
    order = [8, 0, 3, 1, 7, 4, 2, 6, 5]
    header = [HEADER[k] for k in order] + ["comment"]
    rows = [[repr(r[k]) for k in order] + ["warm-up run"] for r in ROWS]
    text = "\n".join([",".join(header)] + [",".join(r) for r in rows]) + "\n"
    _assert_rows(load_csv(_write(tmp_path / "order.csv", text), arm))


# ------------------------------------------------------------------ CSV: strictness
def test_a_duplicated_column_is_refused_not_silently_taken(arm, tmp_path):
    # an extra 'tau[joint2]' column (a second sensor, a copy-paste) used to replace the
    # first one silently: identification then fitted the wrong torques
    header = [*HEADER, "tau[joint2]"]
    rows = [[*r, 0.0] for r in ROWS]
    path = _write(tmp_path / "dup.csv", _table(header=header, rows=rows))
    with pytest.raises(ValueError, match=r"dup\.csv: duplicated column name\(s\): "
                       r"'tau\[joint2\]' in columns 9, 10"):  # fmt: skip
        load_csv(path, arm)


@pytest.mark.parametrize(
    "cell, why",
    [
        ("abc", r"'abc' is not a number"),
        ("", r"empty"),
        ("nan", r"'nan' is not a number"),
        ("inf", r"'inf' is not a number"),
        ("1e999", r"'1e999' is beyond the float range"),
        ("1_000", r"'1_000' is not a number"),
        ("0x10", r"'0x10' is not a number"),
    ],
)
def test_a_bad_cell_is_named_by_file_line_and_column(arm, tmp_path, cell, why):
    # genfromtxt made these NaN (or 1000, or inf) without a word
    rows = [list(map(repr, r)) for r in ROWS]
    rows[1][3] = cell  # line 3 (the header is line 1), column 4: v[joint1]
    text = "\n".join([",".join(HEADER)] + [",".join(r) for r in rows]) + "\n"
    path = _write(tmp_path / "cells.csv", text)
    with pytest.raises(ValueError, match=rf"cells\.csv: 1 bad cell.*line 3, column 4 "
                       rf"\(v\[joint1\]\): {why}"):  # fmt: skip
        load_csv(path, arm)


def test_every_bad_cell_and_short_row_is_named_and_a_decimal_comma_explained(arm, tmp_path):
    text = (
        "t;q[joint1];q[joint2];v[joint1];v[joint2];a[joint1];a[joint2];tau[joint1];tau[joint2]\n"
        "0;0.1;0.2;0;0;0;0;1;1\n"
        "0.01;0,15;0.2;0;0;0;x;1;1\n"
        "0.02;0.2;0.2;0;0;0;0;1\n"
    )
    path = _write(tmp_path / "eu.csv", text)
    with pytest.raises(ValueError) as err:
        load_csv(path, arm)
    msg = str(err.value)
    assert msg.startswith(f"{path}: 3 bad cell(s) or row(s): "), msg
    assert "line 3, column 2 (q[joint1]): '0,15' is not a number (a decimal comma?" in msg
    assert "line 3, column 7 (a[joint2]): 'x' is not a number" in msg
    assert "line 4: 8 cells, the header has 9" in msg


def test_a_missing_column_names_the_file_and_what_the_header_holds(arm, tmp_path):
    header = [h for h in HEADER if h != "tau[joint2]"]
    rows = [r[:-1] for r in ROWS]
    path = _write(tmp_path / "short.csv", _table(header=header, rows=rows))
    with pytest.raises(ValueError, match=r"short\.csv: missing column\(s\) tau\[joint2\] \(the "
                       r"header, split at ',', has 't', 'q\[joint1\]'"):  # fmt: skip
        load_csv(path, arm)
    # a[...] columns: all or none (some of them is a mistake, not "differentiate v")
    header = [h for h in HEADER if h != "a[joint2]"]
    rows = [r[:6] + r[7:] for r in ROWS]
    path = _write(tmp_path / "some_a.csv", _table(header=header, rows=rows))
    with pytest.raises(ValueError, match=r"missing column\(s\) a\[joint2\]"):
        load_csv(path, arm)


def test_without_accelerations_t_must_increase(arm, tmp_path):
    keep = [k for k, h in enumerate(HEADER) if not h.startswith("a[")]
    header = [HEADER[k] for k in keep]
    rows = [[r[k] for k in keep] for r in ROWS]
    ex = load_csv(_write(tmp_path / "no_a.csv", _table(header=header, rows=rows)), arm)
    # central differences of v over t, typed: (1.441 - 1.5) / 0.02 in the middle row
    np.testing.assert_allclose(ex.a[1], [(1.441 - 1.5) / 0.02, (0.289 - 0.25) / 0.02], rtol=1e-12)
    rows[2][0] = 0.01  # a repeated time: the difference would be inf
    path = _write(tmp_path / "same_t.csv", _table(header=header, rows=rows))
    with pytest.raises(ValueError, match=r"same_t\.csv: .* must increase: data row 3 has "
                       r"t = 0\.01 after 0\.01"):  # fmt: skip
        load_csv(path, arm)


def test_not_utf8_or_empty_or_no_rows_names_the_file(arm, tmp_path):
    path = _write(tmp_path / "utf16.csv", _table(), encoding="utf-16")
    with pytest.raises(ValueError, match=r"utf16\.csv: not UTF-8 text"):
        load_csv(path, arm)
    with pytest.raises(ValueError, match=r"empty\.csv: empty file"):
        load_csv(_write(tmp_path / "empty.csv", ""), arm)
    with pytest.raises(ValueError, match=r"header\.csv: no data rows"):
        load_csv(_write(tmp_path / "header.csv", ",".join(HEADER) + "\n"), arm)


def test_save_csv_refuses_an_existing_file_and_reads_back_bit_for_bit(arm, tmp_path):
    rng = np.random.default_rng(4)
    ex = Experiment(np.arange(5) * 0.1, *(rng.normal(size=(5, 2)) for _ in range(4)))
    path = save_csv(tmp_path / "d.csv", arm, ex)
    back = load_csv(path, arm)
    for name in ("t", "q", "v", "a", "tau"):
        np.testing.assert_array_equal(getattr(back, name), getattr(ex, name))
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match=r"d\.csv.*overwrite=True"):
        save_csv(path, arm, Experiment(ex.t, ex.q, ex.v, ex.a, ex.tau * 2))
    assert path.read_bytes() == before
    save_csv(path, arm, Experiment(ex.t, ex.q, ex.v, ex.a, ex.tau * 2), overwrite=True)
    np.testing.assert_array_equal(load_csv(path, arm).tau, ex.tau * 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]  # no temporary left
    ex.tau[1, 0] = np.nan  # a file that could not be read back is not written
    with pytest.raises(ValueError, match=r"experiment\.tau contains NaN or inf \(sample 1\)"):
        save_csv(tmp_path / "nan.csv", arm, ex)
    assert not (tmp_path / "nan.csv").exists()


# ------------------------------------------------------------------ trajectories: .npz
@pytest.fixture(scope="module")
def run(arm):
    return rd.simulate(arm, [0.3, -0.2], duration=0.05, dt=0.01)


def _members(path) -> dict:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def _zip(path, members: dict, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, x in members.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(x), allow_pickle=True)
            z.writestr(name + ".npy", buf.getvalue())
    return path


def test_save_refuses_an_existing_file_and_writes_atomically(run, tmp_path):
    path = run.save(tmp_path / "run.npz")
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match=r"run\.npz.*overwrite=True"):
        run.save(path)
    with pytest.raises(FileExistsError, match=r"run\.npz"):
        run.save(tmp_path / "run")  # the .npz is added, then checked
    assert path.read_bytes() == before
    assert run.save(path, overwrite=True) == path
    csv = run.to_csv(tmp_path / "run.csv")
    with pytest.raises(FileExistsError, match=r"run\.csv"):
        run.to_csv(csv)
    run.to_csv(csv, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.csv", "run.npz"]
    assert rd.Trajectory.load(path) == run


def _load_error(path, **kw) -> rd.TrajectoryFileError:
    with pytest.raises(rd.TrajectoryFileError) as err:
        rd.Trajectory.load(path, **kw)
    e = err.value
    assert isinstance(e, ValueError) and e.path == str(path)
    assert str(e).startswith(f"trajectory file {str(path)!r}")
    return e


def test_a_file_that_is_not_a_trajectory_names_the_file(run, tmp_path):
    good = run.save(tmp_path / "good.npz")
    data = good.read_bytes()
    # before: EOFError, BadZipFile, "Cannot load file containing pickled data", a raw
    # KeyError 'meta' or 'q', JSONDecodeError, none of them naming the file
    cases = {
        "empty.npz": b"",
        "text.npz": b"t,q\n0,1\n",
        "half.npz": data[: len(data) // 2],
        "pickle.npz": pickle.dumps({"q": [1, 2]}),
    }
    for name, blob in cases.items():
        (tmp_path / name).write_bytes(blob)
        e = _load_error(tmp_path / name)
        assert e.field is None and "not a .npz file" in str(e), name
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npy").rename(tmp_path / "array.npz")
    assert "not a .npz file" in str(_load_error(tmp_path / "array.npz"))


def test_flipped_bytes_fail_the_crc_of_the_member(run, tmp_path):
    path = run.save(tmp_path / "flip.npz")
    blob = bytearray(path.read_bytes())
    at = blob.find(run.q.tobytes())  # the q samples, stored as they are in memory
    assert at > 0
    blob[at + 13] ^= 0x40
    path.write_bytes(bytes(blob))
    e = _load_error(path)
    assert e.field is None and "Bad CRC-32 for file 'q.npy'" in str(e)


def test_metadata_and_arrays_are_checked(run, arm, tmp_path):
    x = _members(run.save(tmp_path / "good.npz"))

    def case(name, **change):
        members = {**x, **change}
        for k, v in change.items():
            if v is None:
                del members[k]
        return _zip(tmp_path / name, members)

    e = _load_error(case("nometa.npz", meta=None))
    assert e.field == "meta" and "missing" in str(e)
    e = _load_error(case("badjson.npz", meta=np.array('{"model": "planar_2r",')))
    assert e.field == "meta" and "not JSON" in str(e)
    e = _load_error(case("list.npz", meta=np.array("[1, 2]")))
    assert e.field == "meta" and "JSON object" in str(e)
    e = _load_error(case("noq.npz", q=None))
    assert e.field == "q" and "missing" in str(e)
    e = _load_error(case("shortv.npz", v=x["v"][:-1]))
    assert e.field == "v" and "has shape (5, 2), expected (6, 2)" in str(e)
    e = _load_error(case("tq.npz", t=x["t"][:, None]))
    assert e.field == "t" and "expected (K + 1,)" in str(e)
    e = _load_error(case("qrows.npz", q=x["q"][:-2]))
    assert e.field == "q" and "one row per sample" in str(e)
    e = _load_error(case("tau3.npz", tau=x["tau"][:, :1]))
    assert e.field == "tau"
    e = _load_error(case("obj.npz", q=np.array([None] * 12, dtype=object).reshape(6, 2)))
    assert e.field == "q" and "object values" in str(e)  # never unpickled
    e = _load_error(case("status.npz", status=np.array([0, 1])))
    assert e.field == "status" and "one per rollout" in str(e)
    e = _load_error(case("z.npz", z=np.zeros((5, 1))))
    assert e.field == "z"
    # the model given: its nq / nv and joint names must be the run's
    e = _load_error(tmp_path / "good.npz", model=rd.models.load("ur5"))
    assert e.field == "q" and "the model 'ur5' has nq = 6" in str(e)
    meta = json.loads(str(x["meta"]))
    renamed = case("names.npz", meta=np.array(json.dumps({**meta, "joint_names": ["a", "b"]})))
    e = _load_error(renamed, model=arm)
    assert e.field == "joint_names"
    assert rd.Trajectory.load(renamed).meta["joint_names"] == ["a", "b"]  # without a model


def test_a_member_that_lies_about_its_size_or_appears_twice_is_refused(run, tmp_path):
    x = _members(run.save(tmp_path / "good.npz"))
    # a .npy header declaring 10^9 samples over the 96 bytes of q: refused before numpy
    # allocates (np.load allocated the declared shape, then failed with a raw ValueError)
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": (10**9, 2)}
    )
    path = tmp_path / "lie.npz"
    _zip(path, {k: v for k, v in x.items() if k != "q"})
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("q.npy", buf.getvalue() + x["q"].tobytes())
    e = _load_error(path)
    assert e.field == "q" and "header says shape (1000000000, 2)" in str(e)
    # the same member twice (zipfile reads the last one; which is the trajectory?)
    path = _zip(tmp_path / "twice.npz", x)
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "a") as z:
        z.writestr("q.npy", b"")
    e = _load_error(path)
    assert e.field == "q" and "twice" in str(e)


def test_a_member_that_would_inflate_past_the_memory_limit_is_refused_before(run, tmp_path,
                                                                          monkeypatch):  # fmt: skip
    # 200 MB of zeros deflate to ~0.2 MB: the zip directory says how large each member is,
    # which is checked before anything is inflated (np.load inflated it all)
    import tracemalloc

    x = _members(run.save(tmp_path / "good.npz"))
    path = tmp_path / "bomb.npz"
    _zip(path, {k: v for k, v in x.items() if k != "q"})
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (12_500_000, 2)}
    )
    zero = bytes(4_000_000)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as z:
        with z.open("q.npy", "w", force_zip64=True) as f:
            f.write(header.getvalue())
            for _ in range(50):
                f.write(zero)
    assert path.stat().st_size < 1_000_000
    tracemalloc.start()
    try:
        e = _load_error(path, max_memory=100e6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.field == "q" and "the member 'q.npy' would take 200 MB of memory" in str(e)
    assert "max_memory=100 MB" in str(e) and peak < 10e6
    # under the limit, its shape (12.5 million samples, t has 6) is refused before inflating
    tracemalloc.start()
    try:
        e = _load_error(path, max_memory=1e9)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.field == "q" and "has shape (12500000, 2), expected (..., 6, nq)" in str(e)
    assert peak < 10e6
    # by default the limit is the memory available (here pretended to be 50 MB)
    import robodyn._checks

    monkeypatch.setattr(robodyn._checks, "available_memory", lambda: 50_000_000)
    e = _load_error(path)
    assert "over the 50 MB of memory available (max_memory= raises it)" in str(e)
    # and a limit below a good file's size refuses it too, naming the whole
    with zipfile.ZipFile(tmp_path / "good.npz") as z:
        sizes = [info.file_size for info in z.infolist()]
    e = _load_error(tmp_path / "good.npz", max_memory=max(sizes) + 1)
    assert e.field is None and f"arrays would take {sum(sizes) / 1e3:.3g} kB of memory" in str(e)


def test_a_missing_file_names_a_partial_left_beside_it(tmp_path):
    (tmp_path / "run.npz.partial").mkdir()
    with pytest.raises(FileNotFoundError, match=r"run\.npz.*a stopped run left .*run\.npz"
                       r"\.partial"):  # fmt: skip
        rd.Trajectory.load(tmp_path / "run.npz")
    e = _load_error(tmp_path / "run.npz.partial")  # a folder without meta.json
    assert "without meta.json" in str(e)


def test_the_error_pickles_with_its_fields():
    e = rd.TrajectoryFileError("a/run.npz", "has shape (2,)", "q")
    back = pickle.loads(pickle.dumps(e))
    assert (back.path, back.field, back.problem, str(back)) == (e.path, e.field, e.problem, str(e))
    assert str(e) == "trajectory file 'a/run.npz', 'q': has shape (2,)"
    assert "TrajectoryFileError" in rd.__all__


# ------------------------------------------------------------------ trajectories: partials
K1 = 6  # samples laid out


def _partial(tmp_path, done=4, **meta_change):
    """A <out>.partial folder as a streamed run leaves it (robodyn's own stream writer):
    6 samples laid out, the first ``done`` written with typed numbers."""
    from robodyn.sim.npzstream import NpzStream

    folder = tmp_path / "run.npz.partial"
    folder.mkdir()
    shapes = {"t": (K1,), "q": (K1, 2), "v": (K1, 2), "a": (K1, 2), "tau": (K1, 2)}
    stream = NpzStream(folder / "data.npz", shapes)
    for k in range(K1):
        stream.arrays["t"][k] = 0.01 * k
        for j, name in enumerate(("q", "v", "a", "tau")):
            stream.arrays[name][k] = [k + 0.25 * j, -k - 0.5 * j]
    layout = stream.layout
    for m in stream.arrays.values():
        m.flush()
    stream.arrays.clear()
    meta = {"model": "planar_2r", "rollouts": [], "joint_names": ["joint1", "joint2"],
            "done": done, "layout": layout, **meta_change}  # fmt: skip
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_a_partial_loads_its_done_samples(arm, tmp_path):
    part = rd.Trajectory.load(_partial(tmp_path, done=4), model=arm)
    assert part.meta["complete"] is False and len(part) == 4
    np.testing.assert_array_equal(part.t, [0.0, 0.01, 0.02, 0.03])
    np.testing.assert_array_equal(part.q[:, 0], [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(part.tau[:, 1], [-1.5, -2.5, -3.5, -4.5])


@pytest.mark.parametrize("done", [-5, 7, 2.5, True, "3", None])
def test_a_done_count_outside_the_layout_is_refused(tmp_path, done):
    # "done": -5 used to load K + 1 - 5 samples (a slice from the end) without a word
    e = _load_error(_partial(tmp_path, done=done))
    assert e.field == "done" and "in 0..6" in str(e)


def _tamper(folder, **change):
    meta = json.loads((folder / "meta.json").read_text())
    meta["layout"] = {**meta["layout"], **change}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_a_layout_outside_its_file_or_folder_is_refused(tmp_path):
    outside = tmp_path / "secret.bin"
    outside.write_bytes(bytes(4096))
    folder = _partial(tmp_path)
    arrays = json.loads((folder / "meta.json").read_text())["layout"]["arrays"]
    for name in ("../secret.bin", str(outside), "", "sub/data.npz"):
        e = _load_error(_tamper(folder, file=name))
        assert e.field == "layout" and "must name a file in the folder" in str(e), name
    (folder / "link.npz").symlink_to(outside)
    e = _load_error(_tamper(folder, file="link.npz"))
    assert e.field == "layout" and "not a plain file" in str(e)
    size = (folder / "data.npz").stat().st_size
    e = _load_error(_tamper(folder, file="data.npz", arrays={**arrays, "q": [size - 8, [K1, 2]]}))
    assert e.field == "layout" and "beyond the end of 'data.npz'" in str(e)
    e = _load_error(_tamper(folder, arrays={**arrays, "v": arrays["q"]}))
    assert e.field == "layout" and "overlap" in str(e)
    e = _load_error(_tamper(folder, arrays={**arrays, "q": [arrays["q"][0], [K1, 1, 2]]}))
    assert e.field == "layout" and "'q' has shape [6, 1, 2]" in str(e)
    e = _load_error(_tamper(folder, arrays={**arrays, "w": [0, [1]]}))
    assert e.field == "layout" and "unknown array 'w'" in str(e)
    e = _load_error(_tamper(folder, arrays={**arrays, "q": [-8, [K1, 2]]}))
    assert e.field == "layout"


def test_a_truncated_data_file_or_bad_meta_json_is_refused(tmp_path):
    folder = _partial(tmp_path)
    data = (folder / "data.npz").read_bytes()
    (folder / "data.npz").write_bytes(data[: len(data) // 2])
    e = _load_error(folder)
    assert e.field == "layout" and "truncated or altered" in str(e)
    (folder / "meta.json").write_text('{"done": 3,')
    e = _load_error(folder)
    assert e.field == "meta" and "not JSON" in str(e)
    (folder / "meta.json").write_text('{"done": 3}')
    e = _load_error(folder)
    assert e.field == "layout" and "missing" in str(e)
