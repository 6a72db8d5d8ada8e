"""An early pytest plugin (`-p tests.defer_imports`, in the Makefile's test targets, which pytest loads before the
installed plugins): it defers one import that every pytest process pays for and no test of ours uses.

nbval's plugin imports nbformat, which imports jsonschema, whose `_format` module imports `rfc3987_syntax` for its
"iri" format checks; that module builds 38 Lark parsers when imported, about 2.5 CPU-seconds in the controller and
in each xdist worker. nbformat validates notebooks without a format checker, so nothing here calls it. A stand-in
takes its place in `sys.modules`; the first use of any of its names imports the real module, so behaviour is
unchanged (tests/test_defer_imports.py). A JupyterLab server the browser tests start is another process, untouched.
"""
import importlib
import importlib.util
import sys
import types


class Deferred(types.ModuleType):
    """Module `name` until one of its names is used, then the real module, imported in the stand-in's place. The
    `functions` are those imported by name (`from name import f`, which reads them at once): each is a function that
    imports the module when called. Any other name (PEP 562's module `__getattr__`) imports it at once."""

    def __init__(self, name, functions):
        super().__init__(name)
        for function in functions:
            setattr(self, function, self._deferring(function))

    def _deferring(self, function):
        def call(*args, **kwargs):
            return getattr(self.real(), function)(*args, **kwargs)
        call.__name__ = function
        return call

    def real(self):
        """The real module (imported now if it was not)."""
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return importlib.import_module(self.__name__)

    def __getattr__(self, name):
        if name.startswith("__"):  # the import system's questions (`__path__`, ...): a plain module's answers
            raise AttributeError(name)
        return getattr(self.real(), name)


def defer(name, *functions):
    """Put a `Deferred` stand-in for module `name` in `sys.modules`, unless it is imported already or missing."""
    if name not in sys.modules and importlib.util.find_spec(name) is not None:
        sys.modules[name] = Deferred(name, functions)


defer("rfc3987_syntax", "is_valid_syntax")  # what jsonschema._format imports from it
