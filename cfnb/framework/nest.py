"""Nested structures of tensors (lists, tuples, namedtuples, dicts), as `tf.nest` treats them.

`while_loop` and `cond` flatten their arguments to a list of tensors, build the graph on the flat
list, and pack the results back into the caller's structure; structure checks happen here.
Dicts flatten in sorted-key order, exactly as TensorFlow does. With `expand_composites=True` a composite
value (an `IndexedSlices`) is not a leaf: it stands for its component tensors (values, indices and, when
known, dense_shape), which is how cond and while_loop carry it through Switch/Merge or a function's
inputs and outputs (TensorFlow's `nest.flatten(..., expand_composites=True)` and `CompositeTensor`).
"""
from collections.abc import Mapping


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x):
    """Whether `x` is a structure nest walks into (list, tuple, namedtuple, dict), not a leaf (TensorFlow's
    `nest.is_nested`)."""
    return isinstance(x, (list, tuple, Mapping))


def _is_composite(x):
    """A composite value (TensorFlow's `CompositeTensor`): one that lists its component tensors."""
    return hasattr(x, "_to_components") and hasattr(x, "_from_components")


def _children(x):
    if isinstance(x, Mapping):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(structure, expand_composites=False):
    """The leaves of `structure` in order, dict values by sorted key (TensorFlow's `nest.flatten`): how loop
    variables and cond results become the flat tensor lists the graph holds."""
    if not is_nested(structure):
        return structure._to_components() if expand_composites and _is_composite(structure) else [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child, expand_composites))
    return out


def _rebuild(template, children):
    if isinstance(template, Mapping):
        keys = sorted(template)
        result = dict(zip(keys, children))
        return type(template)((k, result[k]) for k in template) if type(template) is not dict else \
            {k: result[k] for k in template}
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    return list(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """The inverse of `flatten` (TensorFlow's `nest.pack_sequence_as`): `flat_sequence` rebuilt into the
    shape of `structure`, so a `while_loop` returns loop variables structured as they were given."""
    flat_sequence = list(flat_sequence)
    if not is_nested(structure) and not (expand_composites and _is_composite(structure)):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1")
        return flat_sequence[0]
    n = len(flatten(structure, expand_composites))
    if n != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
                         f"{len(flat_sequence)} items.")
    pos = 0

    def build(s):
        nonlocal pos
        if expand_composites and _is_composite(s):
            k = len(s._to_components())
            pos += k
            return s._from_components(flat_sequence[pos - k:pos])
        if not is_nested(s):
            pos += 1
            return flat_sequence[pos - 1]
        return _rebuild(s, [build(c) for c in _children(s)])

    return build(structure)


def map_structure(fn, *structures, expand_composites=False):
    """`fn` applied leaf by leaf to structures of the same shape (TensorFlow's `nest.map_structure`)."""
    flats = [flatten(s, expand_composites) for s in structures]
    for s in structures[1:]:
        assert_same_structure(structures[0], s, expand_composites=expand_composites)
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)], expand_composites)


def _structure_error(a, b, why, error=ValueError):
    return error("The two structures don't have the same nested structure.\n\n"
                      f"First structure: {_describe(a)}\n\nSecond structure: {_describe(b)}\n\n"
                      f"More specifically: {why}")


def _describe(x):
    if not is_nested(x):
        return "."
    if isinstance(x, Mapping):
        return "{" + ", ".join(f"{k!r}: {_describe(x[k])}" for k in sorted(x)) + "}"
    inner = ", ".join(_describe(c) for c in x)
    if _is_namedtuple(x):
        return f"{type(x).__name__}({inner})"
    return f"({inner})" if isinstance(x, tuple) else f"[{inner}]"


def assert_same_structure(a, b, check_types=True, expand_composites=False):
    """Raise (TF's error and message) unless `a` and `b` nest the same way.

    With `check_types`, a list and a tuple differ, as do two namedtuple types; like TF, a
    list/tuple at the same place is tolerated when check_types=False. As in TF, a difference of
    sequence type (dict or not, list or tuple, namedtuple types) is a TypeError, any other a ValueError.
    With `expand_composites`, two composites match when their type specs do (TensorFlow's TypeSpec: the
    class and each component's dtype), and a composite never matches a plain tensor.
    """
    if expand_composites and (_is_composite(a) or _is_composite(b)):
        _assert_same_composite(a, b)
        return
    if is_nested(a) != is_nested(b):
        raise _structure_error(a, b, f"Substructure {_describe(a if is_nested(a) else b)} is a sequence, "
                                     f"while the other is not.")
    if not is_nested(a):
        return
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        raise _structure_error(a, b, _sequence_type_mismatch(a, b), TypeError)
    if isinstance(a, Mapping):
        if sorted(a) != sorted(b):
            raise _structure_error(a, b, f"The two dictionaries don't have the same set of keys: "
                                         f"{sorted(a)} and {sorted(b)}.")
    elif check_types:
        if (type(a) is not type(b) if _is_namedtuple(a) or _is_namedtuple(b)
                else isinstance(a, tuple) != isinstance(b, tuple)):
            raise _structure_error(a, b, _sequence_type_mismatch(a, b), TypeError)
    if len(a) != len(b):
        raise _structure_error(a, b, f"The two structures don't have the same number of elements: "
                                     f"{len(a)} and {len(b)}.")
    for x, y in zip(_children(a), _children(b)):
        assert_same_structure(x, y, check_types, expand_composites)


def _assert_same_composite(a, b):
    if not (_is_composite(a) and _is_composite(b)) or type(a) is not type(b):
        raise _structure_error(a, b, f"{type(a).__name__} and {type(b).__name__} are not compatible.")
    specs = [[t.dtype.name for t in x._to_components()] for x in (a, b)]
    if specs[0] != specs[1]:
        raise _structure_error(a, b, f"Incompatible CompositeTensor TypeSpecs: components of dtypes "
                                     f"{specs[0]} and {specs[1]}.", TypeError)


def _sequence_type_mismatch(a, b):
    # TensorFlow's wording, "namedtuples" included, whatever the two types are.
    return (f"The two namedtuples don't have the same sequence type. First structure has type "
            f"{type(a).__name__}, while second structure has type {type(b).__name__}.")
