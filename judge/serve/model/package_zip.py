"""The files of a package zip an admin uploads (a problem package's new version, issue 33; a contest
package added to a site, issue 44), checked before anything is written: a readable zip, 1 to ``max_files``
files unpacking to at most ``limit_bytes``, every name inside the package (no absolute path, no ``..``, no
backslash: no zip slip), each part at most ``NAME_BYTES``, the whole at most ``PATH_CHARS``, no name twice
and none both a file and a folder. ``__MACOSX/`` is left out. Each mistake is a ``Refused`` (400; 413 when
too large) with one line."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import PurePosixPath

from judge.serve.model.errors import Refused

NAME_BYTES = 255  # a file or folder name in the package (the file systems' limit)
PATH_CHARS = 1024  # a member's whole path

Member = tuple[PurePosixPath, bytes]


def members(data: bytes, limit_bytes: int, max_files: int, *, links: bool = True) -> list[Member]:
    """The files of ``data`` (a zip), checked. ``links`` False: a symbolic link in the zip is refused
    (else it is read as the file holding the link's target, as zipfile reads it)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
            if not infos or len(infos) > max_files:
                raise Refused(400, f"the zip holds {len(infos)} files: a package has 1 to {max_files}")
            if sum(i.file_size for i in infos) > limit_bytes:
                raise Refused(413, f"the package unpacks to more than {limit_bytes // 2**20} MiB")
            out = []
            for info in infos:
                name = PurePosixPath(info.filename)
                if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
                    raise Refused(400, f"the zip holds a file outside the package: {info.filename!r}")
                check_name(info.filename, name)
                if not links and stat.S_ISLNK(info.external_attr >> 16):
                    raise Refused(400, f"the zip holds a symbolic link: {info.filename!r} (zip the files themselves)")
                out.append((name, zf.read(info)))  # zipfile reads at most the declared size (checked above)
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - zipfile raises many kinds
        raise Refused(400, f"not a readable zip archive ({type(exc).__name__}: {exc})") from None
    check_tree([n for n, _ in out])
    return out


def check_name(member: str, name: PurePosixPath) -> None:
    """A member's name the file system takes (issue 43: ``.``, a 300-character name were 500s): a name at all,
    each part at most ``NAME_BYTES``, the whole at most ``PATH_CHARS``. Raises Refused (400)."""
    if not name.parts:
        raise Refused(400, f"the zip holds a file without a name: {member[:100]!r}")
    long = next((p for p in name.parts if len(p.encode("utf-8", "surrogateescape")) > NAME_BYTES), None)
    if long is not None:
        raise Refused(400, f"the zip holds a name longer than {NAME_BYTES} bytes: {long[:60]!r}...")
    if len(member) > PATH_CHARS:
        raise Refused(400, f"the zip holds a path longer than {PATH_CHARS} characters: {member[:60]!r}...")


def check_tree(names: list[PurePosixPath]) -> None:
    """The files can be made: no name twice, none both a file and a folder (``a`` and ``a/b``: issue 43)."""
    files: set[PurePosixPath] = set()
    for n in names:
        if n in files:
            raise Refused(400, f"the zip holds {n.as_posix()!r} twice")
        files.add(n)
    folders = {parent for n in names for parent in n.parents if parent.parts}
    both = sorted(files & folders)
    if both:
        raise Refused(400, f"the zip holds {both[0].as_posix()!r} both as a file and as a folder")


def strip_top(files: list[Member], markers: tuple[str, ...]) -> list[Member]:
    """The files without their one top folder when one of ``markers`` (e.g. ``problem.yaml``) is in it (a zip
    of the package's folder rather than of its contents)."""
    tops = {n.parts[0] for n, _ in files}
    nested = all(len(n.parts) > 1 for n, _ in files) and any(
        len(n.parts) == 2 and n.parts[1] in markers for n, _ in files
    )
    if len(tops) == 1 and nested:
        return [(PurePosixPath(*n.parts[1:]), b) for n, b in files]
    return files
