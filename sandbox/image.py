"""Build the sandbox images from the recipe in sandbox/recipe/ (tags are recipe hashes).

    python -m sandbox.image ensure --flavor cpu|gpu   # build when missing, print the tag
    python -m sandbox.image tag --flavor cpu|gpu      # print the tag, build nothing
    python -m sandbox.image prune                     # remove images of outdated recipes

1. Base: ``sandbox/recipe/build-base.sh`` runs ``debootstrap --variant=minbase
   --include=python3 bookworm`` and ``docker import``s the tree as ``onsite-base:<hash>``.
2. Flavour: the pinned wheels of ``requirements-<flavor>.txt`` are unpacked on the host with
   ``pip install --no-deps --target``, then ``sandbox/recipe/Dockerfile`` layers them and the
   harness on the base (built with ``--network none``).

A tag hashes everything its image is made of (Dockerfile, requirements, harness sources, base
tag), so an unchanged recipe is never rebuilt. Scratch space: ``$ONSITE_VAR_DIR/sandbox-build``
(default ``var/sandbox-build`` in the repository, ignored by git). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors

from sandbox.docker_runner import docker_errors
from sandbox.types import SandboxError

REPO = Path(__file__).resolve().parent.parent
RECIPE = Path(__file__).resolve().parent / "recipe"
HARNESS = Path(__file__).resolve().parent / "harness"
FLAVORS = ("cpu", "gpu")
BASE_REPO = "onsite-base"
IMAGE_REPO = "onsite-sandbox"
PYTHON_TAGS = [
    "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
    "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux2014_x86_64",
]  # fmt: skip


def _say(message: str) -> None:
    print(f"[sandbox-image] {message}", file=sys.stderr, flush=True)


def build_dir() -> Path:
    """Scratch space for builds (ignored by git)."""
    var = os.environ.get("ONSITE_VAR_DIR") or str(REPO / "var")
    return Path(var) / "sandbox-build"


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()[:16]


def base_tag() -> str:
    """``onsite-base:<hash of build-base.sh>``."""
    return f"{BASE_REPO}:{_digest((RECIPE / 'build-base.sh').read_bytes())}"


CUDA_ENV = "ONSITE_SANDBOX_CUDA"  # 1/0 forces the gpu image's CUDA torch on/off
# The CUDA wheels (nvidia-*, triton) are tagged for older manylinux baselines than torch's.
CUDA_PLATFORM_TAGS = [
    arg for tag in ("manylinux_2_27_x86_64", "manylinux_2_25_x86_64", "manylinux_2_18_x86_64",
                    "manylinux_2_17_x86_64", "manylinux2010_x86_64", "manylinux_2_12_x86_64",
                    "manylinux1_x86_64", "manylinux_2_5_x86_64")
    for arg in ("--platform", tag)
]


def host_has_nvidia_gpu() -> bool:
    """Whether the gpu image carries a CUDA build of torch: ``ONSITE_SANDBOX_CUDA=1``/``0``
    decides; otherwise yes only when ``nvidia-smi -L`` on this host lists a GPU. Without one
    the image keeps the CPU torch (a CUDA build is several GB nothing here could use)."""
    forced = os.environ.get(CUDA_ENV, "").strip().lower()
    if forced in ("1", "true", "yes", "on"):
        return True
    if forced in ("0", "false", "no", "off"):
        return False
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30,
                                check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return listed.returncode == 0 and "GPU" in listed.stdout


def requirements_file(flavor: str) -> Path:
    """The pinned requirements of a flavour; the gpu flavour on an NVIDIA host: the CUDA ones."""
    if flavor not in FLAVORS:
        raise ValueError(f"flavor must be one of {FLAVORS}, got {flavor!r}")
    if flavor == "gpu" and host_has_nvidia_gpu():
        return RECIPE / "requirements-gpu-cuda.txt"
    return RECIPE / f"requirements-{flavor}.txt"


def requirement_lines(path: Path) -> list[str]:
    """Pinned requirements of ``path``, following ``-r`` includes, comments dropped."""
    lines: list[str] = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            lines += requirement_lines(path.parent / line[3:].strip())
        else:
            lines.append(line)
    return lines


def harness_files() -> list[Path]:
    return sorted(p for p in HARNESS.glob("*.py") if p.is_file())


def image_tag(flavor: str) -> str:
    """``onsite-sandbox:<flavor>-<hash>``: a hash of everything the image is made of."""
    parts = [
        flavor.encode(),
        (RECIPE / "Dockerfile").read_bytes(),
        "\n".join(requirement_lines(requirements_file(flavor))).encode(),
        base_tag().encode(),
    ]
    for path in harness_files():
        parts += [path.name.encode(), path.read_bytes()]
    return f"{IMAGE_REPO}:{flavor}-{_digest(*parts)}"


def _client(timeout: int = 3600) -> docker.DockerClient:
    with docker_errors("cannot reach the Docker engine"):
        client = docker.from_env(timeout=timeout)
        client.ping()
        return client


def image_exists(client: docker.DockerClient, tag: str) -> bool:
    with docker_errors(f"cannot inspect image {tag}"):
        try:
            client.images.get(tag)
        except docker.errors.ImageNotFound:
            return False
        return True


@contextlib.contextmanager
def _build_lock(name: str) -> Iterator[None]:
    """One build of ``name`` (base, cpu, gpu) at a time on this machine (parallel test
    sessions, setup.sh); a CPU build never waits for a GPU one. Order: flavour, then base."""
    root = build_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".lock-{name}", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(cmd: list[str], what: str) -> None:
    _say(f"{what}: {' '.join(cmd[:6])}{' …' if len(cmd) > 6 else ''}")
    # stdout to stderr as well: the CLI's stdout carries only the tag.
    result = subprocess.run(cmd, stdout=sys.stderr, check=False)
    if result.returncode != 0:
        raise SandboxError(f"{what} failed (exit {result.returncode})")


def ensure_base(client: docker.DockerClient) -> str:
    """Build the debootstrap base image unless its tag exists; returns the tag."""
    tag = base_tag()
    if image_exists(client, tag):
        return tag
    with _build_lock("base"):
        if image_exists(client, tag):
            return tag
        if shutil.which("debootstrap") is None:
            raise SandboxError("debootstrap is not installed (apt-get install debootstrap)")
        scratch = build_dir() / f"base-{tag.split(':')[1]}"
        scratch.mkdir(parents=True, exist_ok=True)
        try:
            _run(["bash", str(RECIPE / "build-base.sh"), str(scratch), tag], "base image")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if not image_exists(client, tag):
            raise SandboxError(f"the base image {tag} was not created")
        return tag


def _prepare_context(flavor: str, context: Path) -> None:
    """Build context: Dockerfile, site/ (unpacked wheels) and harness/."""
    if context.exists():
        shutil.rmtree(context)
    site = context / "site"
    site.mkdir(parents=True)
    requirements = requirements_file(flavor)
    _run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-deps", "--only-binary=:all:", "--no-compile", *PYTHON_TAGS,
            *(CUDA_PLATFORM_TAGS if requirements.name.endswith("-cuda.txt") else []),
            "--target", str(site), "-r", str(requirements),
        ],
        f"wheels ({flavor})",
    )  # fmt: skip
    shutil.rmtree(site / "bin", ignore_errors=True)  # console scripts: nothing runs them
    (context / "harness").mkdir()
    for path in harness_files():
        shutil.copy2(path, context / "harness" / path.name)
    shutil.copy2(RECIPE / "Dockerfile", context / "Dockerfile")


def _docker_build(client: docker.DockerClient, context: Path, tag: str, base: str) -> None:
    _say(f"docker build {tag} (from {base})")
    with docker_errors(f"docker build {tag}"):
        stream = client.api.build(
            path=str(context),
            tag=tag,
            buildargs={"BASE": base},
            network_mode="none",
            rm=True,
            forcerm=True,
            pull=False,
            decode=True,
            labels={"onsite.recipe": tag},
        )
        for chunk in stream:
            if "error" in chunk:
                raise SandboxError(f"docker build {tag}: {chunk['error'].strip()}")
            text = chunk.get("stream", "")
            if text.strip():
                print(text.rstrip(), file=sys.stderr, flush=True)


def ensure(flavor: str) -> str:
    """Build the ``flavor`` image if its tag is missing; returns the tag."""
    tag = image_tag(flavor)
    client = _client()
    try:
        if image_exists(client, tag):
            return tag
        with _build_lock(flavor):
            if image_exists(client, tag):  # built meanwhile by another process
                return tag
            base = ensure_base(client)
            context = build_dir() / f"context-{flavor}"
            try:
                _prepare_context(flavor, context)
                _docker_build(client, context, tag, base)
            finally:
                shutil.rmtree(context, ignore_errors=True)
            if not image_exists(client, tag):
                raise SandboxError(f"docker build did not produce {tag}")
            _say(f"built {tag}")
            return tag
    finally:
        with contextlib.suppress(Exception):
            client.close()


def prune() -> list[str]:
    """Remove onsite-sandbox/onsite-base images whose tag is no longer the recipe's.

    Images still used by a container are kept (Docker refuses); returns the removed tags.
    """
    current = {image_tag(flavor) for flavor in FLAVORS} | {base_tag()}
    removed: list[str] = []
    client = _client(timeout=300)
    try:
        with docker_errors("cannot list images"):
            images = client.images.list()
        for image in images:
            for tag in image.tags:
                repo = tag.rsplit(":", 1)[0]
                if repo in (IMAGE_REPO, BASE_REPO) and tag not in current:
                    try:
                        client.images.remove(tag)
                    except docker.errors.APIError as exc:
                        _say(f"kept {tag}: {exc.explanation or exc}")
                        continue
                    removed.append(tag)
                    _say(f"removed {tag}")
    finally:
        with contextlib.suppress(Exception):
            client.close()
    return removed


def main(argv: list[str] | None = None) -> int:
    """CLI entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m sandbox.image",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=("ensure", "tag", "prune"))
    parser.add_argument("--flavor", choices=FLAVORS, default="cpu")
    args = parser.parse_args(argv)
    if args.command == "tag":
        print(image_tag(args.flavor))
        return 0
    if args.command == "prune":
        try:
            prune()
        except SandboxError as exc:
            _say(f"error: {exc}")
            return 1
        return 0
    try:
        print(ensure(args.flavor))
    except SandboxError as exc:
        _say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
