"""Authoring without files: a new problem from nothing, every part edited through the package
checks, wrong solutions, and packages in and out as `.zip` (round trip with the bank)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from problems.archive import package_unzip, package_zip
from problems.models import Problem, ProblemVersion
from problems.package import PackageError, package_read
from problems.services import BANK_DIR, problem_to_package
from tests.factories import user_with_role

pytestmark = pytest.mark.django_db

WRONG = "def solve(x):\n    return x + 1\n"


@pytest.fixture
def client(writer: User) -> Client:
    client = Client()
    client.force_login(writer)
    return client


def create(client: Client, slug: str = "echo", **extra: str) -> object:
    data = {
        "slug": slug,
        "title": "Echo",
        "difficulty": "easy",
        "queue": "cpu",
        "kind": "implement",
        "topics": "basics, warm-up",
        "entry": "solve",
    } | extra
    return client.post("/studio/new/", data)


def newest(slug: str = "echo") -> ProblemVersion:
    """The draft an edit made: the problem's newest version."""
    version = ProblemVersion.objects.filter(problem__slug=slug).order_by("-number").first()
    assert version is not None
    return version


def zip_upload(data: bytes, name: str = "package.zip") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/zip")


# ---------------------------------------------------------------- a new problem


def test_an_author_creates_a_problem_from_nothing(client: Client, writer: User) -> None:
    assert client.get("/studio/new/").status_code == 200
    response = create(client)
    assert response.status_code == 302 and response["Location"] == "/studio/echo/"
    problem = Problem.objects.get(slug="echo")
    assert problem.owner == writer and not problem.published
    assert problem.topics == ["basics", "warm-up"] and problem.difficulty == "easy"
    v1 = problem.versions.get()
    assert v1.validation == "draft" and v1.created_by == writer
    assert problem.live_version == v1
    assert not Problem.objects.offered().filter(slug="echo").exists()
    page = client.get("/studio/echo/").content.decode()
    assert 'id="parts-save"' in page and 'id="wrong-add"' in page


def test_a_bad_new_problem_is_refused_on_its_field(client: Client) -> None:
    create(client)
    assert create(client).status_code == 400  # taken
    assert "exists already" in create(client).content.decode()
    assert "is a studio page" in create(client, slug="new").content.decode()
    assert create(client, slug="Bad Slug").status_code == 400
    assert create(client, slug="x2", entry="not an identifier").status_code == 400
    assert Problem.objects.count() == 1


def test_candidates_cannot_create(writer: User) -> None:
    candidate = Client()
    candidate.force_login(user_with_role("cand", "candidate"))
    assert create(candidate).status_code == 403
    assert not Problem.objects.exists()


# ---------------------------------------------------------------- every part


def parts(**changes: str) -> dict[str, str]:
    return {
        "starter_code": "def solve(x):\n    pass\n",
        "reference_code": "def solve(x):\n    return x\n",
        "driver_code": "",
        "checker_code": "",
        "support_code": "",
        "hints": "Think about identity.\nReturn the input.",
        "follow_ups": "",
        "driver": "function",
        "entry": "solve",
        "compare": "exact",
        "title": "Echo",
        "difficulty": "easy",
        "queue": "cpu",
        "kind": "implement",
        "topics": "basics, warm-up",
        "float_rel": "1e-6",
        "float_abs": "1e-9",
    } | changes


def test_every_part_saves_as_a_draft_version_and_the_problem_keeps_the_live_copy(
    client: Client, writer: User
) -> None:
    create(client)
    response = client.post("/studio/echo/parts/", parts())
    assert response.status_code == 302
    problem = Problem.objects.get(slug="echo")
    v2 = newest()
    assert v2.number == 2 and v2.hints == ["Think about identity.", "Return the input."]
    assert (v2.validation, v2.created_by, v2.change_note) == ("draft", writer, "starter; hints")
    assert problem.hints == [] and problem.live_version is not None  # v1's, still live
    assert problem.live_version.number == 1
    # the same parts again change nothing, so make nothing
    client.post("/studio/echo/parts/", parts())
    assert problem.versions.count() == 2
    client.post("/studio/echo/parts/", parts(title="Echo!", topics="a, b", difficulty="hard"))
    v3 = newest()
    assert (v3.title, v3.topics, v3.difficulty) == ("Echo!", ["a", "b"], "hard")
    assert v3.change_note == "title; difficulty; topics"
    problem.refresh_from_db()
    assert (problem.title, problem.topics, problem.difficulty) == (
        "Echo",
        ["basics", "warm-up"],
        "easy",
    )
    client.post(
        "/studio/echo/parts/",
        parts(compare="float", float_rel="0.01", title="Echo!", topics="a, b", difficulty="hard"),
    )
    v4 = newest()
    assert v4.compare["mode"] == "float" and v4.compare["float_rel"] == 0.01
    assert v4.change_note == "comparison" and v4.hints == v2.hints and v4.title == "Echo!"


def test_a_broken_part_is_refused_and_nothing_is_saved(client: Client) -> None:
    create(client)
    response = client.post("/studio/echo/parts/", parts(reference_code="def solve(:\n"))
    assert response.status_code == 400 and "reference.py" in response.content.decode()
    response = client.post("/studio/echo/parts/", parts(compare="checker"))
    assert response.status_code == 400 and "checker.py" in response.content.decode()
    problem = Problem.objects.get(slug="echo")
    assert newest().reference_code == "def solve(x):\n    return x\n"
    assert problem.versions.count() == 1


def test_wrong_solutions_are_added_with_their_verdict_and_deleted(client: Client) -> None:
    create(client)
    data = {"file": "wrong/off_by_one.py", "verdict": "WA", "why": "adds one", "code": WRONG}
    assert client.post("/studio/echo/wrong/", data).status_code == 302
    assert newest().wrong_solutions == [
        {"file": "wrong/off_by_one.py", "verdict": "WA", "why": "adds one", "code": WRONG}
    ]
    assert newest().change_note == "wrong solutions"
    refused = client.post("/studio/echo/wrong/", data | {"verdict": "AC"})
    assert refused.status_code == 400
    refused = client.post("/studio/echo/wrong/", data | {"file": "../evil.py"})
    assert refused.status_code == 400
    assert client.post("/studio/echo/wrong/0/delete/").status_code == 302
    assert newest().wrong_solutions == [] and newest().number == 3
    assert client.post("/studio/echo/wrong/5/delete/").status_code == 404


def test_known_solutions_are_added_replaced_and_deleted_in_the_studio(client: Client) -> None:
    # issue 41.3: known leaked solutions, compared with every Submit (grading/copies.py)
    create(client)
    data = {"file": "known/forum_post.py", "code": WRONG}
    assert client.post("/studio/echo/known/", data).status_code == 302
    assert newest().known_solutions == [{"file": "known/forum_post.py", "code": WRONG}]
    assert newest().change_note == "known solutions"
    page = client.get("/studio/echo/")
    assert b"known/forum_post.py" in page.content and b'id="known-form"' in page.content
    again = "def solve(y):\n    return y + 2\n"
    assert client.post("/studio/echo/known/", data | {"code": again}).status_code == 302
    assert newest().known_solutions == [{"file": "known/forum_post.py", "code": again}]
    refused = client.post("/studio/echo/known/", data | {"file": "../evil.py"})
    assert refused.status_code == 400
    assert client.post("/studio/echo/known/0/delete/").status_code == 302
    assert newest().known_solutions == []
    assert client.post("/studio/echo/known/5/delete/").status_code == 404


def test_replacing_a_wrong_solution_keeps_the_groups_and_words_it_declared(
    client: Client,
) -> None:
    create(client)
    data = {"file": "wrong/off_by_one.py", "verdict": "WA", "why": "adds one", "code": WRONG}
    assert client.post("/studio/echo/wrong/", data).status_code == 302
    declared = newest()
    declared.wrong_solutions = [declared.wrong_solutions[0] | {"groups": ["edge"], "says": "1"}]
    declared.save()

    assert client.post("/studio/echo/wrong/", data | {"why": "adds one more"}).status_code == 302

    (entry,) = newest().wrong_solutions
    assert (entry["why"], entry["groups"], entry["says"]) == ("adds one more", ["edge"], "1")


def test_the_wrong_solution_form_declares_groups_and_words(client: Client) -> None:
    create(client)
    data = {"file": "wrong/off_by_one.py", "verdict": "WA", "why": "adds one", "code": WRONG}
    declared = data | {"groups": " edge cases, budget ,", "says": "too many"}
    assert client.post("/studio/echo/wrong/", declared).status_code == 302

    (entry,) = newest().wrong_solutions
    assert (entry["groups"], entry["says"]) == (["edge cases", "budget"], "too many")
    page = client.get("/studio/echo/").content.decode()
    assert "fails edge cases, budget" in page and "says “too many”" in page
    refused = client.post("/studio/echo/wrong/", data | {"groups": "x" * 61})
    assert refused.status_code == 400


# ---------------------------------------------------------------- packages in and out


def test_a_bank_package_round_trips_through_a_zip(client: Client, tmp_path: Path) -> None:
    # given the bank's token bucket loaded
    call_command("loadproblems", str(BANK_DIR / "token-bucket"))
    # when it is exported from the studio
    response = client.get("/studio/token-bucket/export.zip")
    assert response["Content-Type"] == "application/zip"
    assert 'filename="token-bucket.zip"' in response["Content-Disposition"]
    data = response.content
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "token-bucket/problem.toml" in names and "token-bucket/tests/hidden.json" in names
    # then it reads back as the very package in the bank
    assert package_unzip(data) == package_read(BANK_DIR / "token-bucket")
    # and imported into an empty database it is the same problem again, owned by the importer
    Problem.objects.all().delete()
    upload = client.post("/studio/import/", {"archive": zip_upload(data)})
    assert upload.status_code == 302
    problem = Problem.objects.get(slug="token-bucket")
    assert problem.owner is not None and problem.owner.username == "writer"
    assert not problem.published
    assert problem_to_package(problem=problem) == package_read(BANK_DIR / "token-bucket")
    # waiting for validation (the sweeper queues it), recorded in the history
    v1 = problem.versions.get()
    assert v1.validation == "pending" and v1.change_note == "imported from a .zip"


def test_a_zip_with_files_at_its_top_is_accepted(tmp_path: Path) -> None:
    package = package_read(BANK_DIR / "lru-cache")
    nested = zipfile.ZipFile(io.BytesIO(package_zip(package)))
    flat = io.BytesIO()
    with zipfile.ZipFile(flat, "w") as archive:
        for name in nested.namelist():
            archive.writestr(name.split("/", 1)[1], nested.read(name))
    assert package_unzip(flat.getvalue()) == package


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"../problem.toml": "x"}, "outside the package folder"),
        ({"/abs/problem.toml": "x"}, "outside the package folder"),
        ({"a/readme.md": "x"}, "needs exactly one"),
        ({"a/problem.toml": "slug = 'b'\n", "b/problem.toml": "x"}, "needs exactly one"),
        ({"a/problem.toml": "[broken"}, "invalid TOML"),
    ],
)
def test_a_malformed_zip_is_a_clear_error(entries: dict[str, str], message: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    with pytest.raises(PackageError, match=message):
        package_unzip(buffer.getvalue())


def test_a_zip_bomb_and_a_non_zip_are_refused() -> None:
    with pytest.raises(PackageError, match="not a zip archive"):
        package_unzip(b"hello")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a/problem.toml", "slug='a'\n")
        archive.writestr("a/tests/public.json", b"0" * (64 * 1024 * 1024))
    assert len(buffer.getvalue()) < 1024 * 1024  # small on the wire
    with pytest.raises(PackageError, match="unzips to more than"):
        package_unzip(buffer.getvalue())


def test_importing_refuses_what_the_uploader_may_not_change(client: Client) -> None:
    call_command("loadproblems", str(BANK_DIR / "token-bucket"))
    data = package_zip(package_read(BANK_DIR / "token-bucket"))
    # the bank problem has no owner: only admins change it
    response = client.post("/studio/import/", {"archive": zip_upload(data)}, follow=True)
    assert "you are not one of its authors" in response.content.decode()
    admin = Client()
    admin.force_login(user_with_role("root", admin=True))
    response = admin.post("/studio/import/", {"archive": zip_upload(data)}, follow=True)
    assert "unpublish it first" in response.content.decode()  # it is published
    response = client.post("/studio/import/", {"archive": zip_upload(b"nope")}, follow=True)
    assert "Refused, nothing imported" in response.content.decode()
    assert ProblemVersion.objects.count() == 1


def test_a_symlink_in_a_zip_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        link = zipfile.ZipInfo("a/reference.py")
        link.external_attr = (0o120777) << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr("a/problem.toml", "slug='a'\n")
    with pytest.raises(PackageError, match="only plain files and folders"):
        package_unzip(buffer.getvalue())


def test_clarifications_with_the_key_flag_and_rubric_anchors_are_edited(client: Client) -> None:
    create(client)
    clarifications = '[{"question": "Can x be negative?", "answer": "Yes.", "key": true}]'
    rubric = (
        '[{"criterion": "edge_cases", "weight": 2, "strong": "names negatives",'
        ' "levels": ["none", "some", "most", "all"]}]'
    )
    response = client.post(
        "/studio/echo/parts/", parts(clarifications=clarifications, rubric=rubric)
    )
    assert response.status_code == 302
    draft = newest()
    assert draft.clarifications == [
        {"question": "Can x be negative?", "answer": "Yes.", "key": True}
    ]
    assert draft.rubric[0]["levels"] == ["none", "some", "most", "all"]
    assert draft.rubric[0]["weight"] == 2.0
    # the editor shows them back as JSON
    page = client.get("/studio/echo/").content.decode()
    assert "Can x be negative?" in page and "names negatives" in page
    three = rubric.replace(', "all"', "")
    refused = client.post("/studio/echo/parts/", parts(rubric=three))
    assert refused.status_code == 400 and "must be 4 strings" in refused.content.decode()
    refused = client.post("/studio/echo/parts/", parts(clarifications="[{"))
    assert refused.status_code == 400 and "not valid JSON" in refused.content.decode()
    refused = client.post("/studio/echo/parts/", parts(clarifications='[{"answer": "a"}]'))
    assert refused.status_code == 400 and "needs" in refused.content.decode()


def test_a_clarifications_other_phrasings_and_keywords_are_kept(client: Client) -> None:
    create(client)
    clarifications = (
        '[{"question": "Can x be negative?", "answer": "Yes.", "key": true,'
        ' "also": ["Is x ever below zero?"], "keywords": ["sign"]}]'
    )
    response = client.post("/studio/echo/parts/", parts(clarifications=clarifications))
    assert response.status_code == 302
    assert newest().clarifications == [
        {
            "question": "Can x be negative?",
            "answer": "Yes.",
            "key": True,
            "also": ["Is x ever below zero?"],
            "keywords": ["sign"],
        }
    ]
    refused = client.post(
        "/studio/echo/parts/",
        parts(clarifications='[{"question": "q", "answer": "a", "also": "not a list"}]'),
    )
    assert refused.status_code == 400 and "also must be a list" in refused.content.decode()


def _bank_zip_with(slug: str, file: str, old: str, new: str) -> bytes:
    buffer = io.BytesIO()
    source = zipfile.ZipFile(io.BytesIO(package_zip(package_read(BANK_DIR / slug))))
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in source.namelist():
            body = source.read(name)
            if name == f"{slug}/{file}":
                assert old.encode() in body
                body = body.replace(old.encode(), new.encode(), 1)
            archive.writestr(name, body)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("file", "old", "new", "says"),
    [
        ("problem.toml", "memory_mb = 256", 'memory_mb = "lots"', "limits.memory_mb"),
        (
            "problem.toml",
            "test_cpu_seconds = 2.0",
            "test_cpu_seconds = [2]",
            "limits.test_cpu_seconds",
        ),
        ("problem.toml", "float_rel = 1e-06", 'float_rel = "close"', "grading.float_rel"),
        ("problem.toml", "[grading]", "[grading", "problem.toml: file: invalid TOML"),
        ("tests/public.json", "[", "{", "tests/public.json: file: invalid JSON"),
        ("reference.py", "def ", "def (", "reference.py: line"),
    ],
)
def test_an_import_with_a_malformed_field_names_it_and_no_server_path(
    client: Client, file: str, old: str, new: str, says: str
) -> None:
    # given the bank's lru-cache zipped with one field broken
    data = _bank_zip_with("lru-cache", file, old, new)
    # when it is imported, then the page says which file and field, and nothing is imported
    response = client.post("/studio/import/", {"archive": zip_upload(data)}, follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Refused, nothing imported" in page and says in page
    assert "onsite-unzip" not in page and "/tmp" not in page
    assert not Problem.objects.exists()


def test_a_studio_edit_error_names_the_package_file_not_the_scratch_folder(client: Client) -> None:
    create(client)
    response = client.post("/studio/echo/parts/", parts(reference_code="def solve(:\n"))
    assert response.status_code == 400
    page = response.content.decode()
    assert "echo/reference.py" in page
    assert "onsite-edit" not in page and "/tmp" not in page


@pytest.mark.parametrize(
    "entries",
    [
        {"problem.toml": "slug = " + "[" * 5000},  # nested past the recursion limit
        {"problem.toml": "slug = " + "9" * 5000},  # an integer Python will not convert
        {"problem.toml/": "", "x": "y"},  # a folder where the file belongs
        {"a/problem.toml": "slug = 'a'\n", "a/statement.md/": "", "a/statement.md/x": "y"},
        {"a/problem.toml": "slug = 'a'\n", "a/x": "file", "a/x/y": "then a folder of one name"},
    ],
)
def test_an_absurd_archive_is_a_package_error_never_a_crash(entries: dict[str, str]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    with pytest.raises(PackageError) as error:
        package_unzip(buffer.getvalue())
    assert "onsite-unzip" not in str(error.value) and "/tmp" not in str(error.value)
