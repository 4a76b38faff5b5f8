"""Problem packages as `.zip` files: the `problems/bank/` folder format, zipped. Django-free.

`package_zip` writes a package as `<slug>/...` entries; `package_unzip` reads one back through
`package_read`, so an uploaded archive gets exactly the checks a folder on disk gets. An upload
is untrusted: entries may not escape the folder, links and devices are refused, and the sizes
are capped before anything is extracted (a zip bomb is refused, not inflated).
"""

from __future__ import annotations

import io
import stat
import tempfile
import tomllib
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from problems.package import (
    MAX_SOURCE_BYTES,
    MAX_TESTS_BYTES,
    Package,
    PackageError,
    package_read,
    package_write,
)

MAX_ZIP_BYTES = 16 * 1024 * 1024
MAX_ZIP_ENTRIES = 200
# Tests twice (public, hidden) plus generous room for the sources.
MAX_UNZIPPED_BYTES = 2 * MAX_TESTS_BYTES + 40 * MAX_SOURCE_BYTES
ARCHIVE = "package.zip"  # what a PackageError about the archive itself names
# What reading one entry of a damaged archive raises: a bad CRC, truncated or corrupt deflate
# data, an encrypted entry (RuntimeError), a compression method zipfile lacks.
_UNREADABLE_ENTRY = (zipfile.BadZipFile, EOFError, zlib.error, RuntimeError, NotImplementedError)


def package_zip(package: Package) -> bytes:
    """The package as a zip of its folder (`<slug>/problem.toml`, `<slug>/tests/...`)."""
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="onsite-zip-") as scratch:
        folder = package_write(package, scratch)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                archive.write(path, (Path(package.slug) / path.relative_to(folder)).as_posix())
    return buffer.getvalue()


def _safe_names(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    infos = archive.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise PackageError(ARCHIVE, "entries", f"more than {MAX_ZIP_ENTRIES} files")
    total = 0
    for info in infos:
        name = PurePosixPath(info.filename)
        if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
            raise PackageError(ARCHIVE, info.filename, "a path outside the package folder")
        kind = stat.S_IFMT(info.external_attr >> 16)  # 0 when the zip did not record one
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            raise PackageError(ARCHIVE, info.filename, "only plain files and folders")
        total += info.file_size
        if total > MAX_UNZIPPED_BYTES:
            raise PackageError(ARCHIVE, "size", f"unzips to more than {MAX_UNZIPPED_BYTES} bytes")
    return infos


def _package_root(infos: list[zipfile.ZipInfo]) -> str:
    """The folder inside the archive that holds problem.toml ('' for the archive's top)."""
    tomls = [PurePosixPath(i.filename) for i in infos if PurePosixPath(i.filename).name
             == "problem.toml"]
    if len(tomls) != 1 or len(tomls[0].parts) > 2:
        raise PackageError(
            ARCHIVE, "problem.toml", "needs exactly one, at the top or in one folder"
        )
    return tomls[0].parent.as_posix() if len(tomls[0].parts) == 2 else ""


def package_unzip(data: bytes) -> Package:
    """Read an uploaded package archive. Raises PackageError naming the file and field."""
    if len(data) > MAX_ZIP_BYTES:
        raise PackageError(ARCHIVE, "size", f"larger than {MAX_ZIP_BYTES} bytes")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise PackageError(ARCHIVE, "file", "not a zip archive") from exc
    with archive, tempfile.TemporaryDirectory(prefix="onsite-unzip-") as scratch:
        infos = _safe_names(archive)
        root = _package_root(infos)
        # A top-level package takes its folder name from its slug, as package_read expects.
        folder = Path(scratch) / (root or "package")
        for info in infos:
            name = PurePosixPath(info.filename)
            if root:
                if name.parts[0] != root:
                    raise PackageError(ARCHIVE, info.filename, "outside the package folder")
                name = PurePosixPath(*name.parts[1:]) if len(name.parts) > 1 else PurePosixPath()
            _extract(archive, info, folder / name)
        if not root:
            folder = _rename_to_slug(folder)
        # package_read names files from the package's folder: the scratch path stays here.
        return package_read(folder)


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    try:
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source:
            # Read at most the declared size plus one byte: a lying header is caught.
            body = source.read(info.file_size + 1)
        if len(body) > info.file_size:
            raise PackageError(ARCHIVE, info.filename, "larger than its header says")
        target.write_bytes(body)
    except _UNREADABLE_ENTRY:
        raise PackageError(ARCHIVE, info.filename, "corrupt, encrypted or compressed in a way "
                           "this server does not read") from None
    except (OSError, ValueError):
        # A file and a folder of one name, a NUL byte or an over-long name: refused by the
        # entry's name (the reason never names the scratch folder).
        raise PackageError(ARCHIVE, info.filename,
                           "cannot be unpacked (a name clash or an unusable name)") from None


def _rename_to_slug(folder: Path) -> Path:
    try:
        slug = tomllib.loads((folder / "problem.toml").read_text(encoding="utf-8")).get("slug")
    except (ValueError, RecursionError, OSError):  # bad TOML or UTF-8, absurd nesting, a folder
        return folder  # package_read reports the broken file with its reason
    if not isinstance(slug, str) or not slug or "/" in slug or slug.startswith("."):
        return folder
    try:
        return folder.rename(folder.with_name(slug))
    except (OSError, ValueError):  # an over-long or unusable slug: package_read refuses it
        return folder
