"""An installed envzoo (not editable, no source checkout) trains with its own hyperparameter files:
the wheel built from this source holds them, and a sweep plans from the wheel's installation."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from envzoo.train.hyperparams import CONFIGS_DIR

pytest.importorskip("stable_baselines3")  # plan() checks each algorithm against the id's action space

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """envzoo's wheel, built from a copy of the package and the top-level files (no build folders)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(ROOT / "envzoo", source / "envzoo", ignore=shutil.ignore_patterns("__pycache__"))
    for path in ROOT.iterdir():
        if path.is_file():
            shutil.copy(path, source / path.name)
    built = subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; "
                            f"print(build_meta.build_wheel({str(tmp / 'dist')!r}))"],
                           cwd=source, capture_output=True, text=True, check=True)
    return tmp / "dist" / built.stdout.split()[-1]


def test_the_wheel_holds_every_hyperparameter_file(wheel):
    shipped = {f"envzoo/train/configs/{path.name}" for path in CONFIGS_DIR.glob("*.yml")}
    assert {"envzoo/train/configs/ppo.yml", "envzoo/train/configs/rllib-ppo.yml"} <= shipped
    assert shipped <= set(zipfile.ZipFile(wheel).namelist())


def test_an_installed_envzoo_plans_a_sweep_from_its_own_files(wheel, tmp_path):
    site = tmp_path / "site-packages"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(site), str(wheel)], check=True)
    # Run from an empty folder with only the installation on the path: no checkout to fall back on.
    script = ("from envzoo.train.hyperparams import CONFIGS_DIR; from envzoo.train.sweep import plan; "
              "runs = plan(['envzoo/Serverless-v1'], ['ppo', 'a2c'], ['sb3'], [0, 1]); "
              "print(CONFIGS_DIR); print(sorted({run.config.n_timesteps for run in runs}))")
    ran = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(site)})
    assert ran.returncode == 0, ran.stderr
    configs, timesteps = ran.stdout.splitlines()[-2:]
    assert Path(configs) == site / "envzoo" / "train" / "configs"
    assert timesteps.startswith("[") and int(timesteps.strip("[]").split(",")[0]) > 0
