"""`aclsim info`: the emulated devices and the active configuration."""

from __future__ import annotations

from aclsim.chips import PROFILES, get_profile
from aclsim.cli import main
from aclsim.runtime import get_runtime
from aclsim.trace.units import fmt_bytes

MB = 1 << 20


def device_rows(out: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines()
            if line.startswith("| ") and line.split("|")[1].strip().isdigit()]


def test_info_lists_each_device_with_its_profile(capsys, monkeypatch):
    monkeypatch.setenv("ACLSIM_DEVICES", "2")
    monkeypatch.setenv("ACLSIM_SOC", "Ascend910B4")
    from aclsim.runtime import reset_runtime

    reset_runtime()
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    chip = get_profile("Ascend910B4")
    rows = device_rows(out)
    assert [r[:2] for r in rows] == [["0", "Ascend910B4"], ["1", "Ascend910B4"]]
    assert rows[0][4] == f"0 / {chip.memory_size // MB}"
    assert rows[0][5:9] == [str(chip.ai_cores), str(chip.vector_cores), fmt_bytes(chip.ub_size), fmt_bytes(chip.l1_size)]
    assert "ACLSIM_SOC       Ascend910B4  (set)" in out
    assert "ACLSIM_DEVICES   2            (set)" in out
    assert "ACLSIM_SCHEDULE  lazy         (default)" in out


def test_info_shows_memory_this_process_uses(capsys):
    rt = get_runtime()
    rt.set_device(0)
    a = rt.malloc(64 * MB, 0)
    assert main(["info"]) == 0
    assert device_rows(capsys.readouterr().out)[0][4] == f"{a.reserved // MB} / {rt.chip.memory_size // MB}"


def test_info_options_and_model_origins(capsys, monkeypatch):
    monkeypatch.setenv("ACLSIM_MODEL_PCIE_BANDWIDTH", "32e9")
    monkeypatch.setenv("ACLSIM_EXTRA_THING", "1")
    assert main(["info", "--soc", "ascend310p3", "--devices", "3"]) == 0
    out = capsys.readouterr().out
    chip = get_profile("Ascend310P3")
    rows = device_rows(out)
    assert len(rows) == 3 and "DDR-Usage(MB)" in out and rows[0][3] == str(chip.arch)
    assert "ACLSIM_SOC       Ascend310P3  (--soc)" in out
    assert "pcie_bandwidth           32 GB/s        (ACLSIM_MODEL_PCIE_BANDWIDTH)" in out
    assert f"hbm_bandwidth            {chip.hbm_bandwidth / 1e9:g} GB/s" in out
    assert "also set: ACLSIM_EXTRA_THING=1" in out


def test_info_lists_the_local_memory_seed_with_its_default(capsys, monkeypatch):
    monkeypatch.delenv("ACLSIM_SEED", raising=False)
    assert main(["info"]) == 0
    assert "ACLSIM_SEED      0            (default)    seed of the random bytes fresh Ascend C local memory" in \
        capsys.readouterr().out
    monkeypatch.setenv("ACLSIM_SEED", "7")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "ACLSIM_SEED      7            (set)" in out
    assert "also set" not in out


def test_info_lists_every_chip_profile(capsys):
    assert main(["info", "--socs"]) == 0
    out = capsys.readouterr().out
    for name in PROFILES:
        assert f"| {name} " in out


def test_info_rejects_a_bad_configuration(capsys, monkeypatch):
    assert main(["info", "--soc", "Ascend999"]) == 2
    assert "aclsim info: unknown SoC 'Ascend999'; known: Ascend910B1" in capsys.readouterr().err
    assert main(["info", "--devices", "0"]) == 2
    assert "--devices must be between 1 and 64, got 0" in capsys.readouterr().err
    monkeypatch.setenv("ACLSIM_MODEL_COPY_OVERHEAD", "-1")
    assert main(["info"]) == 2
    assert "ACLSIM_MODEL_COPY_OVERHEAD: copy_overhead must be a finite number >= 0, got '-1'" in capsys.readouterr().err
