"""tests/defer_imports.py, the early plugin `make test` loads: a deferred module behaves as the real one, and the
real one is imported only when one of its names is first used."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from defer_imports import Deferred, defer  # noqa: E402


def test_a_deferred_module_imports_the_real_one_on_first_use(monkeypatch):
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    defer("colorsys", "rgb_to_hsv")
    assert isinstance(sys.modules["colorsys"], Deferred)
    import colorsys
    from colorsys import rgb_to_hsv  # what jsonschema does with rfc3987_syntax: the name only, nothing runs
    assert not hasattr(colorsys, "__path__") and isinstance(sys.modules["colorsys"], Deferred)
    assert rgb_to_hsv(1.0, 0.5, 0.0) == pytest.approx((1 / 12, 1.0, 1.0))
    real = sys.modules["colorsys"]
    assert not isinstance(real, Deferred) and real.rgb_to_hsv(1.0, 0.5, 0.0) == rgb_to_hsv(1.0, 0.5, 0.0)
    assert colorsys.hsv_to_rgb(1 / 12, 1.0, 1.0) == pytest.approx((1.0, 0.5, 0.0))  # another name: the real one's


def test_a_module_already_imported_or_missing_is_left_alone(monkeypatch):
    import json
    defer("json", "dumps")
    assert sys.modules["json"] is json
    defer("cfnb_no_such_module", "f")
    assert "cfnb_no_such_module" not in sys.modules
