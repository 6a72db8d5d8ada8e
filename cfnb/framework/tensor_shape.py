"""`TensorShape`: a possibly partially-known shape, as in `tf.TensorShape`.

Shapes are checked at graph-build time (that is where `while_loop` refuses a loop var whose shape
changes), so the compatibility rules matter more than the arithmetic.
"""


class Dimension:
    """One dimension of a TensorShape (`tf.compat.v1.Dimension`): `.value` is an int, or None when
    unknown. `TensorShape.dims` lists these, as TensorFlow does; indexing a shape gives plain ints."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value._value if isinstance(value, Dimension) else None if value is None else int(value)

    value = property(lambda self: self._value)

    def __int__(self):
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        if self._value is None or other is None:
            return None
        return self._value == other

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other):
        """Whether two dimensions may be the same: equal, or one unknown (TensorFlow's
        `Dimension.is_compatible_with`)."""
        other = dimension_value(other)
        return self._value is None or other is None or self._value == other

    def __repr__(self):
        return f"Dimension({self._value})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def dimension_value(dimension):
    """The int (or None) of a Dimension, an int or None (`tf.compat.dimension_value`)."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def _dim(d):
    d = dimension_value(d)
    return None if d is None else int(d)


# The types of a dimension `TensorShape` stores as it is: a known one's int, an unknown one's None.
_PLAIN_DIMS = frozenset({int, type(None)})


class TensorShape:
    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        if (type(dims) is tuple or type(dims) is list) and _PLAIN_DIMS.issuperset(map(type, dims)):
            # what the loop below makes, without a call per dimension (a shape's dims, `np.shape` of a value, the
            # list a shape function builds)
            self._dims = tuple(dims)
        elif dims is None:
            self._dims = None
        else:
            try:
                self._dims = tuple(_dim(d) for d in dims)
            except TypeError:
                self._dims = (_dim(dims),)

    # --- reading -------------------------------------------------------------------------
    @property
    def dims(self):
        """The dimensions as `Dimension` objects (None for an unknown rank), as in TensorFlow."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def ndims(self):
        """The rank, None when unknown (TensorFlow's `TensorShape.ndims`)."""
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self):
        """The dimensions as a list, None for an unknown one; an unknown rank is a ValueError
        (TensorFlow's `TensorShape.as_list`)."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        """Whether the rank and every dimension are known (TensorFlow's
        `TensorShape.is_fully_defined`)."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self):
        """The number of elements when the shape is fully defined, else None (TensorFlow's
        `TensorShape.num_elements`)."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    # --- compatibility -------------------------------------------------------------------
    def is_compatible_with(self, other):
        """Whether two shapes may describe the same tensor (TensorFlow's
        `TensorShape.is_compatible_with`): an unknown rank or dimension matches anything."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other):
        """The most specific shape both shapes allow (TensorFlow's `TensorShape.merge_with`); a
        ValueError when they are not compatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other):
        """The most specific shape compatible with both (TensorFlow's
        `most_specific_compatible_shape`): dimensions that differ become unknown. A loop variable whose shape changes
        across iterations gets this shape when shape invariants are relaxed."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        """The dimensions of both shapes, one after the other (TensorFlow's
        `TensorShape.concatenate`); unknown if either rank is."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        """This shape if it has rank `rank` (an unknown rank becomes that many unknown dimensions),
        else a ValueError (TensorFlow's `TensorShape.with_rank`)."""
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    # --- dunder --------------------------------------------------------------------------
    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"


def as_shape(shape):
    """A TensorShape from a shape, a list of dimensions, or a spec with a `shape` (a TensorSpec, as
    `while_loop` accepts for `shape_invariants`)."""
    if isinstance(shape, TensorShape):
        return shape
    if isinstance(getattr(shape, "shape", None), TensorShape):
        return shape.shape
    return TensorShape(shape)


def unknown_shape(rank=None):
    """A shape of unknown rank, or of `rank` unknown dimensions (TensorFlow's `tensor_shape.unknown_shape`)."""
    return TensorShape(None if rank is None else [None] * rank)


def scalar():
    """The shape of a scalar, `[]` (TensorFlow's `tensor_shape.TensorShape([])`)."""
    return TensorShape([])


def broadcast_shapes(a, b, op=None):
    """Static broadcasting of two TensorShapes (unknown dimensions stay unknown): TensorFlow's
    `common_shapes.broadcast_shape`; `op` names the op in the error, as the C++ shape function does."""
    if a._dims is None or b._dims is None:
        return TensorShape(None)
    if a._dims == b._dims:
        return a  # the common case, and what the loop below gives (shapes are immutable: sharing one is safe)
    x, y = a.as_list()[::-1], b.as_list()[::-1]
    out = []
    for i in range(max(len(x), len(y))):
        p = x[i] if i < len(x) else 1
        q = y[i] if i < len(y) else 1
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None or q is None:
            out.append(p if q is None else q)
        elif p != q:
            where = f" for '{op.name}' (op: '{op.type}')" if op is not None else ""
            raise ValueError(f"Dimensions must be equal, but are {p} and {q}{where} with input shapes: "
                             f"{list(a)}, {list(b)}.")
        else:
            out.append(p)
    return TensorShape(out[::-1])
