"""All compat cases (see compat_registry.py): importing this module registers them in CASES."""
from . import compat_cases_errors, compat_cases_surface  # noqa: F401 - they register their cases
from .compat_registry import CASES, Case, normalize

__all__ = ["CASES", "Case", "normalize"]
