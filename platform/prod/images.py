"""Build the production stack's images, each tagged by a hash of its recipe.

    python platform/prod/images.py ensure [--base auto|public|onsite]   # build what is missing
    python platform/prod/images.py tags   [--base auto|public|onsite]   # print tags, build nothing

Prints ``NAME=tag`` lines (ONSITE_APP_IMAGE, ONSITE_REDIS_IMAGE, ONSITE_POSTGRES_IMAGE,
ONSITE_NGINX_IMAGE) for docker-compose to interpolate. Every image starts ``FROM ${BASE}``:

* ``public``: Docker Hub's ``debian:bookworm-slim`` (pulled by the build);
* ``onsite``: the sandbox's own debootstrap base (``onsite-base:<hash>``, built by
  ``sandbox.image`` from ``platform/sandbox/build-base.sh``), for machines without a registry;
* ``auto`` (default): ``public`` when that image is here or can be pulled, else ``onsite``.

Both are Debian bookworm, so one recipe serves both: packages come from the Debian mirror (the
build runs with ``--network host``: dockerd here has no bridge) and Python packages from a
wheelhouse made on the host with ``pip download`` (installed with ``pip install --no-index``).

A tag hashes the Dockerfile, the base, and every file copied into the image (for the app: the
working tree's tracked and untracked-but-not-ignored files, the built editor bundle and
requirements.txt, which pins the wheelhouse), so an unchanged recipe is never rebuilt.
Scratch space: ``$ONSITE_VAR_DIR/prod-build``. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = REPO / "platform" / "prod"
PUBLIC_BASE = "debian:bookworm-slim"
# Not needed in the app image (tests, docs, how the stack is assembled): a change to them must
# not rebuild it.
APP_EXCLUDED = ("tests/", "docs/", ".ci/", "platform/prod/", "docker-compose.yml", "Makefile")
BUNDLE_DIR = "frontend/static/frontend"


@dataclass(frozen=True)
class Recipe:
    name: str  # image repository: onsite-<name>
    env: str  # the compose variable that names its tag
    dockerfile: Path
    files: dict[str, Path]  # path in the build context -> source on the host


def _say(message: str) -> None:
    print(f"[prod-images] {message}", file=sys.stderr, flush=True)


def build_dir() -> Path:
    var = os.environ.get("ONSITE_VAR_DIR") or str(REPO / "var")
    return Path(var) / "prod-build"


def app_files() -> dict[str, Path]:
    """The working tree as git sees it (tracked, and new files not ignored) plus the bundle."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    names = [n for n in listed.split("\0") if n and not n.startswith(APP_EXCLUDED)]
    # The built editor bundles (bundle.js, session.js, board.js, …) and the whiteboard's fonts
    # (fonts/<family>/…) are ignored by git: add the folder, sub-folders included.
    built = sorted(p for p in (REPO / BUNDLE_DIR).rglob("*") if p.is_file())
    if not any(p.name == "bundle.js" for p in built):
        sys.exit(f"[prod-images] {BUNDLE_DIR}/bundle.js is missing: run `make setup` first")
    names += [str(p.relative_to(REPO)) for p in built]
    return {n: REPO / n for n in sorted(set(names)) if (REPO / n).is_file()}


def recipes() -> list[Recipe]:
    return [
        Recipe("app", "ONSITE_APP_IMAGE", REPO / "platform" / "app.Dockerfile", app_files()),
        Recipe(
            "redis", "ONSITE_REDIS_IMAGE", HERE / "redis.Dockerfile",
            {"redis.conf": HERE / "redis.conf"},
        ),
        Recipe(
            "postgres", "ONSITE_POSTGRES_IMAGE", HERE / "postgres.Dockerfile",
            {"postgres-entrypoint.sh": HERE / "postgres-entrypoint.sh"},
        ),
        Recipe(
            "nginx", "ONSITE_NGINX_IMAGE", HERE / "nginx.Dockerfile",
            {"nginx.conf.template": HERE / "nginx.conf.template",
             "nginx-entrypoint.sh": HERE / "nginx-entrypoint.sh"},
        ),
    ]  # fmt: skip


def recipe_tag(recipe: Recipe, base: str) -> str:
    """``onsite-<name>:<16 hex>``: a hash of the Dockerfile, the base and each copied file."""
    h = hashlib.sha256()

    def feed(part: bytes) -> None:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)

    feed(base.encode())
    feed(recipe.dockerfile.read_bytes())
    for name, source in sorted(recipe.files.items()):
        feed(name.encode())
        feed(source.read_bytes())
    return f"onsite-{recipe.name}:{h.hexdigest()[:16]}"


def _docker(*args: str, quiet: bool = False, timeout: float | None = None) -> bool:
    out = subprocess.DEVNULL if quiet else sys.stderr
    try:
        done = subprocess.run(
            ["docker", *args], stdout=out, stderr=out, check=False, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def image_exists(tag: str) -> bool:
    return _docker("image", "inspect", tag, quiet=True)


def onsite_base() -> str:
    """The sandbox's debootstrap base, built by sandbox.image when missing."""
    sys.path.insert(0, str(REPO))
    from sandbox.image import _client, ensure_base

    return ensure_base(_client())


def resolve_base(choice: str) -> str:
    if choice == "public":
        return PUBLIC_BASE
    if choice == "onsite":
        return onsite_base()
    if image_exists(PUBLIC_BASE) or _docker("pull", PUBLIC_BASE, quiet=True, timeout=60):
        return PUBLIC_BASE
    _say(f"{PUBLIC_BASE} cannot be pulled (no registry): using the project's Debian base")
    return onsite_base()


def wheelhouse() -> Path:
    """requirements.txt as wheels, downloaded on the host once per version of the file."""
    requirements = REPO / "requirements.txt"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()[:16]
    target = build_dir() / f"wheels-{digest}"
    if (target / ".complete").exists():
        return target
    _say(f"wheelhouse for requirements.txt → {target}")
    target.mkdir(parents=True, exist_ok=True)
    links = ["--find-links", "/opt/wheels"] if Path("/opt/wheels").is_dir() else []
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--only-binary=:all:", *links, "--dest", str(target), "-r", str(requirements)],
        check=True, stdout=sys.stderr,
    )  # fmt: skip
    (target / ".complete").write_text(digest)
    return target


def _place(source: Path, target: Path) -> None:
    """Hard link when possible (the wheelhouse is large), else copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def build(recipe: Recipe, base: str, tag: str) -> None:
    context = build_dir() / f"context-{recipe.name}"
    if context.exists():
        shutil.rmtree(context)
    context.mkdir(parents=True)
    for name, source in recipe.files.items():
        _place(source, context / name)
    if recipe.name == "app":
        for wheel in wheelhouse().glob("*.whl"):
            _place(wheel, context / "wheels" / wheel.name)
    _place(recipe.dockerfile, context / "Dockerfile")
    _say(f"docker build {tag} (FROM {base})")
    # The classic builder: it honours --network host without BuildKit entitlements.
    env = {**os.environ, "DOCKER_BUILDKIT": "0"}
    cmd = ["docker", "build", "--network", "host", "--build-arg", f"BASE={base}",
           "--label", f"onsite.recipe={tag}", "-t", tag, str(context)]  # fmt: skip
    try:
        done = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr, env=env, check=False)
    finally:
        shutil.rmtree(context, ignore_errors=True)
    if done.returncode != 0:
        sys.exit(f"[prod-images] docker build {tag} failed (exit {done.returncode})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["ensure", "tags"])
    parser.add_argument("--base", choices=["auto", "public", "onsite"],
                        default=os.environ.get("ONSITE_IMAGE_BASE", "auto"))  # fmt: skip
    args = parser.parse_args(argv)
    base = resolve_base(args.base) if args.command == "ensure" else _base_for_tags(args.base)
    for recipe in recipes():
        tag = recipe_tag(recipe, base)
        if args.command == "ensure" and not image_exists(tag):
            build(recipe, base, tag)
        print(f"{recipe.env}={tag}")
    return 0


def _base_for_tags(choice: str) -> str:
    """`tags` builds nothing: `auto` means the public base if it is here, else ours."""
    if choice == "public" or (choice == "auto" and image_exists(PUBLIC_BASE)):
        return PUBLIC_BASE
    sys.path.insert(0, str(REPO))
    from sandbox.image import base_tag

    return base_tag()


if __name__ == "__main__":
    sys.exit(main())
