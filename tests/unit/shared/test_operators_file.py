"""The operators file (shared/operators.py): exactly `{"operators": [{"id": ...}]}`, validated at load with errors
that name the file and the problem; unset, the demo file outside production and a refusal under production."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared import operators
from shared.operators import DEMO_FILE, FILE_ENV, Operator, OperatorsFileError, file_of, load_file

ROOT = Path(__file__).resolve().parents[3]


def _file(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "operators.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def test_a_good_file_gives_its_operators_in_order_with_the_ledger_wallet_mode_by_default(tmp_path):
    path = _file(tmp_path, {"operators": [{"id": "op-b"}, {"id": "op-a", "wallet_mode": "ledger"}]})
    assert load_file(path) == (Operator("op-b", "ledger"), Operator("op-a", "ledger"))
    assert load_file(_file(tmp_path, {"operators": []})) == ()


def test_the_committed_files_are_the_demo_operators_and_none_for_production():
    assert [o.id for o in load_file(ROOT / "deploy" / "operators" / "demo.json")] == ["demo-a", "demo-b"]
    assert load_file(ROOT / "deploy" / "operators" / "production.json") == ()
    for name in ("demo.json", "production.json"):  # the same bytes the k8s overlays carry
        text = (ROOT / "deploy" / "operators" / name).read_text()
        assert text == json.dumps(json.loads(text), indent=2) + "\n"


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"operators": [{"id": "Demo"}]}, "'Demo' is not a lower-case DNS label"),
        ({"operators": [{"id": "op-a"}, {"id": "op-a"}]}, "operator ids repeat"),
        ({"operators": [{"id": "op-a", "colour": "red"}]}, "unknown keys ['colour']"),
        ({"operators": [], "extra": 1}, 'the one key "operators"'),
        ({"operators": [{"id": "op-a", "wallet_mode": "seamless"}]}, "wallet_mode 'seamless'"),
        ({"operators": [{"name": "op-a"}]}, 'with an "id"'),
        ({"operators": [{"id": 7}]}, "must be a string"),
        ({"operators": {"id": "op-a"}}, "must be a list"),
        (["op-a"], 'the one key "operators"'),
    ],
)
def test_a_bad_file_is_refused_naming_the_file_and_the_problem(tmp_path, document, named):
    path = _file(tmp_path, document)
    with pytest.raises(OperatorsFileError) as refused:
        load_file(path)
    assert str(path) in str(refused.value) and named in str(refused.value)


def test_a_repeated_key_an_oversized_file_and_a_file_that_is_no_json_are_refused(tmp_path):
    path = tmp_path / "operators.json"
    for text, named in (
        ('{"operators": [], "operators": [{"id": "x"}]}', "a key repeats"),
        ("{" * 10 + " " * operators.FILE_BYTES_MAX, "larger than"),
        ("operators: []", "not JSON"),
    ):
        path.write_text(text)
        with pytest.raises(OperatorsFileError, match=named):
            load_file(path)


def test_an_unreadable_or_missing_file_is_refused_naming_it(tmp_path):
    with pytest.raises(OperatorsFileError, match=f"{tmp_path / 'absent.json'}: cannot read"):
        load_file(tmp_path / "absent.json")
    with pytest.raises(OperatorsFileError, match="cannot read"):
        load_file(tmp_path)  # a directory


def test_unset_means_the_demo_file_locally_and_is_refused_under_production(tmp_path):
    assert file_of({}) == DEMO_FILE == ROOT / "deploy" / "operators" / "demo.json"
    assert file_of({"REELSTREAM_ENV": "local"}) == DEMO_FILE
    assert file_of({FILE_ENV: str(tmp_path / "x.json"), "REELSTREAM_ENV": "production"}) == tmp_path / "x.json"
    with pytest.raises(OperatorsFileError, match=f"{FILE_ENV} is not set: under REELSTREAM_ENV=production"):
        file_of({"REELSTREAM_ENV": "production"})


def test_a_process_reads_its_file_at_start_and_one_without_a_file_under_production_does_not_start(tmp_path):
    path = _file(tmp_path, {"operators": [{"id": "op-x"}]})
    script = "from shared import operators, topics; print(operators.OPERATORS, len(topics.ANSWER_TOPICS))"
    env = {k: v for k, v in os.environ.items() if k not in (FILE_ENV, "REELSTREAM_ENV")}
    run = subprocess.run(
        [sys.executable, "-c", script], env={**env, FILE_ENV: str(path)}, cwd=ROOT, capture_output=True, text=True
    )
    assert run.stdout.strip() == "('op-x',) 2", run.stderr
    refused = subprocess.run(
        [sys.executable, "-c", script],
        env={**env, "REELSTREAM_ENV": "production"},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and f"{FILE_ENV} is not set" in refused.stderr


def test_the_local_default_is_package_data_so_an_installed_build_has_it():
    """`pip install .` (the image) ships what the editable checkout reads: deploy.operators is a package."""
    from importlib import resources

    from shared import operators

    shipped = resources.files("deploy.operators") / "demo.json"
    assert shipped.is_file() and shipped.read_bytes() == operators.DEMO_FILE.read_bytes()
