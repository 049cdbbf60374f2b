"""kubeconform v0.7.0 `-strict` over both rendered overlays' custom resources, offline, against the vendored CRD
schemas (deploy/schemas/crds, made strict as in test_k8s.py); the core kinds are test_k8s.py's (kubernetes-validate:
kubeconform resolves no schema from its bundled files). Skipped only outside CI when kubeconform is not installed
(.ci/run installs it into the venv); under CI=true it must run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from deploy.k8s.generate import render
from deploy.k8s.tenants import OVERLAYS
from tests.unit.deploy.test_k8s import CRDS, strict

ROOT = Path(__file__).resolve().parents[3]
KUBECONFORM = shutil.which("kubeconform") or str(ROOT / ".venv" / "bin" / "kubeconform")
CORE_KINDS = "ConfigMap,Namespace,Service,StatefulSet,Deployment,PodDisruptionBudget,NetworkPolicy"


def _crd_schemas(folder: Path) -> None:
    """The vendored CRD schemas under the names kubeconform's template asks for (kind in lower case)."""
    for path in CRDS.glob("*.json"):
        group, version, kind = path.stem.split("_")
        target = folder / f"{group}_{version}_{kind.lower()}.json"
        target.write_text(json.dumps(strict(json.loads(path.read_text()))))


@pytest.mark.skipif(
    not Path(KUBECONFORM).exists() and os.environ.get("CI") != "true", reason="kubeconform is not installed"
)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_kubeconform_strict_accepts_the_rendered_overlay(overlay, tmp_path):
    _crd_schemas(tmp_path)
    manifest = tmp_path / f"{overlay}.yaml"
    manifest.write_text(yaml.safe_dump_all(render(overlay), sort_keys=False))
    crds = f"{tmp_path}/{{{{ .Group }}}}_{{{{ .ResourceAPIVersion }}}}_{{{{ .ResourceKind }}}}.json"
    argv = [KUBECONFORM, "-strict", "-summary", "-skip", CORE_KINDS, "-schema-location", crds, str(manifest)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Invalid: 0, Errors: 0" in done.stdout, done.stdout
    # A misspelt field in a custom resource is refused: the check is not vacuous.
    broken = [dict(r, spec={**r["spec"], "partitionz": 1}) if r["kind"] == "KafkaTopic" else r for r in render(overlay)]
    manifest.write_text(yaml.safe_dump_all(broken, sort_keys=False))
    refused = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "partitionz" in refused.stdout, refused.stdout
