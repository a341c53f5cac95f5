"""Targets from Python: Layout.parse(target=), explain(target=), to_physical(target=),
TESSERA_TARGET, and the same refusals as the CLI."""
import numpy as np
import pytest

import tessera


@pytest.fixture(autouse=True)
def no_environment_target(monkeypatch):
    monkeypatch.delenv("TESSERA_TARGET", raising=False)


def test_layout_parse_with_a_target():
    assert str(tessera.Layout.parse("f32[1024,3]")) == "f32[1024,3]{1,0}"
    # A device array: the compiler orders its dims (docs/reference/tpu-targets.md).
    assert str(tessera.Layout.parse("f32[1024,3]", target="tpu")) == "f32[1024,3]{0,1:T(4,128)}"
    assert str(tessera.Layout.parse("f32[1024,3]{1,0}", target="tpu")) == "f32[1024,3]{1,0:T(8,128)}"
    assert str(tessera.Layout.parse("bf16[64,256]", target="tpu-v6e")) == "bf16[64,256]{1,0:T(8,128)(2,1)}"
    assert str(tessera.Layout.parse("bf16[64,256]", target="tpu-v6e", xla_era="2020")) == \
        "bf16[64,256]{1,0:T(16,128)(2,1)}"
    assert str(tessera.Layout.parse("f32[1024,3]", target="tpu", xla_era="2020")) == "f32[1024,3]{1,0:T(8,128)}"
    with pytest.raises(tessera.Error, match="unknown XLA era '1999'"):
        tessera.Layout.parse("f32[3]", target="tpu", xla_era="1999")
    assert str(tessera.Layout.parse("pred[8,128]", target="tpu-v4")) == "pred[8,128]{1,0:T(8,128)(4,1)}"
    assert str(tessera.Layout.parse("f32[3,5]{1,0:T(2,2)}", target="tpu")) == "f32[3,5]{1,0:T(2,2)}"
    with pytest.raises(tessera.Error, match="unknown target 'gpu'"):
        tessera.Layout.parse("f32[3]", target="gpu")


def test_environment_target(monkeypatch):
    monkeypatch.setenv("TESSERA_TARGET", "tpu-v4")
    assert str(tessera.Layout.parse("pred[8,128]")) == "pred[8,128]{1,0:T(8,128)(4,1)}"
    assert str(tessera.Layout.parse("pred[8,128]", target="none")) == "pred[8,128]{1,0}"
    assert tessera.explain("pred[8,128]")["target"] == "tpu-v4"


def test_explain_defaults_to_tpu_for_an_untiled_shape():
    report = tessera.explain("f32[1024,3]")
    assert report["target"] == "tpu-v5e" and report["size_bytes"] == 16 * 1024
    assert report["written_order"]["size_bytes"] == 512 * 1024
    old = tessera.explain("f32[1024,3]", xla_era="2020")
    assert old["target"] == "tpu-v3" and old["size_bytes"] == 512 * 1024
    assert report["unpadded_bytes"] == 12 * 1024
    assert tessera.explain("f32[1024,3]", target="none")["size_bytes"] == 12 * 1024
    assert tessera.explain("f32[3,5]{1,0:T(2,2)}")["target"] == "none"


def test_to_physical_retiles_only_with_a_target(monkeypatch):
    data = np.arange(15, dtype=np.float32).reshape(3, 5)
    assert tessera.to_physical(data, "f32[3,5]").size == 60
    tiled = tessera.to_physical(data, "f32[3,5]", target="tpu")
    assert tiled.size == 4 * 128 * 4
    assert tiled.view(np.float32)[2 * 128 + 3] == data[2, 3]
    assert np.array_equal(tessera.from_physical(tiled, "f32[3,5]", target="tpu"), data)
    monkeypatch.setenv("TESSERA_TARGET", "tpu")
    assert tessera.to_physical(data, "f32[3,5]").size == 4 * 128 * 4


def test_layout_info_adds_the_tpu_size_of_an_untiled_layout():
    info = tessera.Layout("f32[1024,3]").info()
    assert info["size_bytes"] == 12 * 1024 and info["unpadded_bytes"] == 12 * 1024
    assert info["tpu"]["layout"] == "f32[1024,3]{1,0:T(8,128)}" and info["tpu"]["size_bytes"] == 512 * 1024
    assert "tpu" not in tessera.Layout("f32[1024,3]{1,0:T(8,128)}").info()
    assert "on a TPU" in tessera.Layout("f32[1024,3]").info_text()
