"""Writing a user's files: checked before any work, never over a file without asking, never
through a link or onto an input, and atomically.

Every place robodyn writes a path a user gave (``Trajectory.save``, ``simulate(out=)``, a
figure, a page, a fixed URDF, a generated module, the command line's outputs) goes through
:func:`output_path` first and writes with :func:`atomic_write`:

* the folder must exist and be writable; the path is not a folder;
* an existing file is refused unless ``overwrite=True`` (the command line's ``--force``);
  with it, a symbolic link at the path is replaced by the new file, never written through
  into its target, and a file that is also an input (the same inode: a hard link too) is
  refused whatever ``overwrite`` says;
* the bytes go to a temporary file in the same folder, renamed over the path
  (:func:`os.replace`) only when complete: a reader never sees half a file, and a failure
  (or Ctrl-C) leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = [
    "output_path", "output_option", "figure_path", "atomic_write", "distinct_outputs",
    "save_figure",
]  # fmt: skip


def output_path(
    path,
    *,
    overwrite: bool = False,
    name: str = "path",
    inputs: Iterable = (),
    how: str = "pass overwrite=True to replace it",
) -> Path:
    """Check, before any work, that ``path`` may be written (see the module docstring).

    Parameters
    ----------
    path : str or os.PathLike
    overwrite : bool
        Replace an existing file.
    name : str
        The argument or option that named the path (``"out"``, ``"--csv"``), for messages.
    inputs : iterable of paths
        Files the caller reads: the output may not be one of them.
    how : str
        What the message says to do about an existing file.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileExistsError
        The file exists and ``overwrite`` is False.
    ValueError
        The folder is missing or not writable, the path is a folder, or an input.
    """
    p = Path(path)
    where = f"{name} {str(p)!r}"
    if p.is_dir():
        raise ValueError(f"{where}: is a folder; give a file name")
    folder = p.parent
    if not folder.is_dir():
        raise ValueError(f"{where}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{where}: the folder {str(folder)!r} is not writable")
    if p.exists():
        for source in inputs:
            with contextlib.suppress(OSError):
                if os.path.samefile(p, source):
                    raise ValueError(f"{where}: is the input {str(source)!r} (or a link to it)")
    if p.exists() or p.is_symlink():
        if not overwrite:
            link = " (a symbolic link)" if p.is_symlink() else ""
            raise FileExistsError(f"{where}: the file exists{link}; {how}")
    return p


def output_option(option: str, path, *, force: bool = False, inputs: Iterable = ()) -> Path:
    """:func:`output_path` in a command line's words: ``option`` names the path, ``--force``
    overwrites, and an existing file is a ValueError (exit status 2) saying to pass it."""
    try:
        return output_path(path, overwrite=force, name=option, inputs=inputs,
                           how="pass --force to overwrite it")  # fmt: skip
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None


def figure_path(path, overwrite: bool = False) -> None:
    """Before a figure is drawn: :func:`output_path` of the ``path`` it is to be written to,
    when there is one (None: the figure is only returned)."""
    if path is not None:
        output_path(path, overwrite=overwrite, name="path")


def distinct_outputs(paths: dict) -> None:
    """Refuse two outputs that name one file (``--out run.npz --csv run.npz``, or two names
    of one file through links): ``paths`` maps each option to its path."""
    seen: dict = {}
    for option, path in paths.items():
        p = Path(path)
        key = os.path.realpath(p)
        for other, (okey, opath) in seen.items():
            same = key == okey
            if not same and p.exists() and opath.exists():
                with contextlib.suppress(OSError):
                    same = os.path.samefile(p, opath)
            if same:
                raise ValueError(f"{other} and {option} name the same file {str(p)!r}: the "
                                 "second would replace the first")  # fmt: skip
        seen[option] = (key, p)


@contextlib.contextmanager
def atomic_write(path) -> Iterator[Path]:
    """Yield a new temporary path in ``path``'s folder (same suffix, so writers that go by
    the suffix work); when the block ends without an error it replaces ``path``
    (:func:`os.replace`: a link at ``path`` is replaced, not followed); on an error it is
    removed and ``path`` is as it was."""
    path = Path(path)
    while True:  # a new name, created exclusively, with the permissions the umask gives
        # (stem_tmpXXXX.suffix: a generated Python module's name stays an identifier)
        tmp = path.with_name(f"{path.stem}_tmp{secrets.token_hex(4)}{path.suffix}")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path, text_of, *, overwrite: bool = False, name: str = "path"):
    """A writer's one road for a text file: ``path`` checked by :func:`output_path` before
    any work, then ``text_of()`` computed and written by :func:`atomic_write`; with
    ``path=None`` the text is returned and nothing written.

    Returns
    -------
    pathlib.Path or str
        The path written, or the text when ``path`` is None.
    """
    how = "pass overwrite=True to replace it"
    p = None if path is None else output_path(path, overwrite=overwrite, name=name, how=how)
    text = text_of()
    if p is None:
        return text
    with atomic_write(p) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return p


def save_figure(fig, path, *, overwrite: bool = False, name: str = "path", **savefig_kw) -> Path:
    """Write a matplotlib figure to ``path``: checked by :func:`output_path`, written by
    :func:`atomic_write`. A function that draws calls :func:`output_path` itself before it
    draws, then this to write.

    The format is the suffix's (matplotlib's ``savefig.format``, PNG, for a name without
    one), and the file written is ``path`` itself: matplotlib would append ``.png`` to a
    name without a suffix.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or os.PathLike
    overwrite : bool
        Replace an existing file.
    name : str
        The argument that named the path, for messages.
    **savefig_kw
        Passed to ``fig.savefig`` (``dpi=``, ...).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileExistsError, ValueError
        As :func:`output_path`; ValueError also for a suffix matplotlib cannot write.
    """
    import matplotlib

    p = output_path(path, overwrite=overwrite, name=name)
    fmt = (
        savefig_kw.pop("format", None)
        or p.suffix[1:].lower()
        or matplotlib.rcParams["savefig.format"]
    )
    formats = fig.canvas.get_supported_filetypes()
    if fmt not in formats:
        raise ValueError(f"{name} {str(p)!r}: matplotlib writes no {fmt!r} files; use one of "
                         f"{', '.join('.' + f for f in sorted(formats))}")  # fmt: skip
    with atomic_write(p) as tmp:
        fig.savefig(tmp, format=fmt, **savefig_kw)
    return p
