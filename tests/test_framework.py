"""The graph API: TensorFlow's op naming, name scopes, graph lookups, dtype rules, TensorShape, nest,
control dependencies, devices and the Tensor protocol.

Every expected name, type, dtype and error below was recorded from TensorFlow 2.21 with
`tf.compat.v1` in graph mode.
"""
import collections

import numpy as np
import pytest

import cfnb as tf
from cfnb import nest

P = collections.namedtuple("P", ["a", "b"])
Q = collections.namedtuple("Q", ["a", "b"])


def _x():
    return tf.placeholder(tf.float32, [3], name="x")


# --- naming ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build,name,op_type,inputs,dtype", [
    (lambda x: x + 1, "add", "AddV2", ["x:0", "add/y:0"], tf.float32),
    (lambda x: 1 + x, "add", "AddV2", ["add/x:0", "x:0"], tf.float32),
    (lambda x: x - 1, "sub", "Sub", ["x:0", "sub/y:0"], tf.float32),
    (lambda x: 2 - x, "sub", "Sub", ["sub/x:0", "x:0"], tf.float32),
    (lambda x: x * 2, "mul", "Mul", ["x:0", "mul/y:0"], tf.float32),
    (lambda x: x / 2, "truediv", "RealDiv", ["x:0", "truediv/y:0"], tf.float32),
    (lambda x: x // 2., "floordiv", "FloorDiv", ["x:0", "floordiv/y:0"], tf.float32),
    (lambda x: x % 2., "mod", "FloorMod", ["x:0", "mod/y:0"], tf.float32),
    (lambda x: x ** 2, "pow", "Pow", ["x:0", "pow/y:0"], tf.float32),
    (lambda x: -x, "Neg", "Neg", ["x:0"], tf.float32),
    (lambda x: abs(x), "Abs", "Abs", ["x:0"], tf.float32),
    (lambda x: x < 3, "Less", "Less", ["x:0", "Less/y:0"], tf.bool),
    (lambda x: x <= 3, "LessEqual", "LessEqual", ["x:0", "LessEqual/y:0"], tf.bool),
    (lambda x: x > 3, "Greater", "Greater", ["x:0", "Greater/y:0"], tf.bool),
    (lambda x: x >= 3, "GreaterEqual", "GreaterEqual", ["x:0", "GreaterEqual/y:0"], tf.bool),
    (lambda x: tf.add(x, 2.), "Add", "AddV2", ["x:0", "Add/y:0"], tf.float32),
    (lambda x: tf.multiply(x, 2.), "Mul", "Mul", ["x:0", "Mul/y:0"], tf.float32),
])
def test_operator_and_function_names_follow_tensorflow(build, name, op_type, inputs, dtype):
    t = build(_x())
    assert (t.op.name, t.op.type, [i.name for i in t.op.inputs], t.dtype) == (name, op_type, inputs, dtype)
    assert t.name == name + ":0" and t.shape == tf.TensorShape([3])


def test_names_are_unique_case_insensitively():
    x = _x()
    a = x + 1
    b = tf.add(x, 2.)
    c = tf.add(x, 3., name="add")
    assert [a.op.name, b.op.name, c.op.name] == ["add", "Add_1", "add_2"]
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "x", "add/y", "add", "Add_1/y", "Add_1", "add_2/y", "add_2"]


def test_explicit_names_skip_taken_suffixes():
    g = tf.get_default_graph()
    names = [tf.constant(1., name=n).op.name for n in ("x", "x_1", "x", "y_1", "y", "y")]
    assert names == ["x", "x_1", "x_2", "y_1", "y", "y_2"]
    assert [tf.constant(1.).name, tf.constant(1).name] == ["Const:0", "Const_1:0"]
    assert (g.unique_name("foo"), g.unique_name("foo"), g.unique_name("foo", mark_as_used=False)) == \
        ("foo", "foo_1", "foo_2")
    assert g.unique_name("foo") == "foo_2"
    assert tf.constant(1., name="m/").op.name == "m"


def test_name_scope_nesting_reentry_and_uniqueness():
    x = _x()
    with tf.name_scope("foo") as scope:
        assert scope == "foo/"
        assert tf.get_default_graph().get_name_scope() == "foo"
        assert tf.constant(1.).name == "foo/Const:0"
        with tf.name_scope("inner") as inner:
            assert inner == "foo/inner/"
            assert (x + 1).name == "foo/inner/add:0"
    with tf.name_scope("foo") as scope:
        assert scope == "foo_1/"
    with tf.name_scope("Foo") as scope:
        assert scope == "Foo_2/"
    with tf.name_scope("foo/") as scope:
        assert scope == "foo/"
        assert tf.constant(1.).name == "foo/Const_1:0"
    with tf.name_scope("foo"):
        with tf.name_scope(None):
            assert tf.constant(1.).name == "Const:0"
        with tf.name_scope(""):
            assert tf.constant(1., name="q").name == "q:0"
    with tf.name_scope(None, "dflt") as a, tf.name_scope(None, "dflt") as b:
        assert (a, b) == ("dflt/", "dflt/dflt/")
    with tf.name_scope(None, "dflt") as c:
        assert c == "dflt_1/"
    assert tf.get_default_graph().get_name_scope() == ""


# --- graph lookups ------------------------------------------------------------------------------------
def test_get_operations_order_and_lookups():
    x = _x()
    y = x * 2.
    g = tf.get_default_graph()
    assert [(op.name, op.type) for op in g.get_operations()] == [("x", "Placeholder"), ("mul/y", "Const"),
                                                                 ("mul", "Mul")]
    assert g.get_operation_by_name("mul") is y.op
    assert g.get_tensor_by_name("mul:0") is y
    assert g.get_tensor_by_name("x:0") is x
    assert g.as_graph_element("mul") is y.op and g.as_graph_element("mul:0") is y


@pytest.mark.parametrize("lookup,name,error,match", [
    ("get_operation_by_name", "nope", KeyError, "The name 'nope' refers to an Operation not in the graph."),
    ("get_tensor_by_name", "x", ValueError, 'Tensor names must be of the form "<op_name>:<output_index>"'),
    ("get_tensor_by_name", "x:1", KeyError, "The name 'x:1' refers to a Tensor which does not exist. The operation, "
                                            "'x', exists but only has 1 outputs."),
    ("get_tensor_by_name", "nope:0", KeyError, None),
    ("get_operation_by_name", "x:0", ValueError, "Name 'x:0' appears to refer to a Tensor, not a Operation."),
    ("get_tensor_by_name", "nope:0", KeyError, "The operation, 'nope', does not exist in the graph."),
], ids=["missing-op", "op-name-as-tensor", "bad-output-index", "missing-tensor", "tensor-name-as-op",
        "missing-tensor-message"])
def test_lookup_errors(lookup, name, error, match):
    _x()
    with pytest.raises(error) as info:
        getattr(tf.get_default_graph(), lookup)(name)
    if match is not None:
        assert match in str(info.value)


def test_tensor_and_operation_properties():
    x = _x()
    y = x * 2.
    assert (x.name, x.value_index, x.dtype, x.shape, x.get_shape()) == ("x:0", 0, tf.float32, tf.TensorShape([3]),
                                                                        tf.TensorShape([3]))
    assert x.op.name == "x" and x.op.type == "Placeholder" and x.op.outputs == [x]
    assert x.graph is tf.get_default_graph() and y.op.graph is x.graph
    assert [t.name for t in y.op.inputs] == ["x:0", "mul/y:0"]
    assert [op.name for op in x.consumers()] == ["mul"]
    assert repr(x) == "<tf.Tensor 'x:0' shape=(3,) dtype=float32>"
    assert x.op.get_attr("dtype") == tf.float32
    with pytest.raises(ValueError):
        x.op.get_attr("nope")
    assert tf.placeholder(tf.float32).shape == tf.TensorShape(None)
    assert tf.placeholder(tf.int32, (2, None)).shape.as_list() == [2, None]
    assert tf.placeholder(tf.int32).name == "Placeholder_2:0"


def test_tensor_str_is_tensorflows():
    assert str(tf.constant(1., name="a")) == 'Tensor("a:0", shape=(), dtype=float32)'


# --- dtypes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,dtype", [
    (1.5, tf.float32), (3, tf.int32), (-2 ** 31, tf.int32), (2 ** 31, tf.int64), (2 ** 40, tf.int64),
    (np.float64(1.0), tf.float64), (np.float32(1.0), tf.float32), (np.int64(1), tf.int64),
    (np.array([1., 2.]), tf.float64), (np.array([1, 2]), tf.int64), (np.array([1, 2], np.int32), tf.int32),
    (True, tf.bool), ([True, False], tf.bool), (np.array(True), tf.bool), ([1, 2.5], tf.float32),
    ([1, 2], tf.int32), ([1, 2 ** 40], tf.int64), ([[1., 2.], [3., 4.]], tf.float32), ("hi", tf.string),
])
def test_python_and_numpy_values_get_tensorflows_dtype(value, dtype):
    assert tf.constant(value).dtype == dtype
    assert tf.convert_to_tensor(value).dtype == dtype


@pytest.mark.parametrize("value,dtype", [(1, tf.float32), ([1, 2], tf.float64), (1, tf.int64), (True, tf.bool)])
def test_constant_converts_to_requested_dtype(value, dtype):
    t = tf.constant(value, dtype=dtype)
    assert t.dtype == dtype and tf.Session().run(t).dtype == dtype.as_numpy_dtype


def test_mixed_dtype_binary_op_raises_tensorflows_type_error():
    x = tf.placeholder(tf.float32, [2])
    i = tf.placeholder(tf.int32, [2])
    msg = "Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of argument 'x'."
    with pytest.raises(TypeError) as info:
        tf.constant(1, tf.float32) + tf.constant(1)
    assert str(info.value) == msg
    with pytest.raises(TypeError) as info:
        tf.add(x, i)
    assert str(info.value) == msg
    with pytest.raises(TypeError, match="Input 'y' of 'Mul' Op has type float32 that does not match type int32"):
        tf.multiply(i, x)
    with pytest.raises(TypeError, match="Input 'y' of 'Less' Op has type int32"):
        x < i  # noqa: B015
    with pytest.raises(TypeError, match="'y' of (op )?'Sub'"):
        tf.constant(2) - 1.5
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
        tf.constant(2) + 1.0
    # A Python number takes the tensor's dtype when it fits.
    assert [(x + 1).dtype, (1 + x).dtype, (i * 2).dtype, (tf.constant(np.int64(2)) + 1).dtype,
            (tf.constant(np.float64(2.)) + 1.5).dtype] == [tf.float32, tf.float32, tf.int32, tf.int64, tf.float64]


def test_function_form_takes_dtype_from_first_argument():
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
        tf.add(1, tf.placeholder(tf.float32, [2]))


@pytest.mark.parametrize("dtype,other", [(tf.float32, np.float64(1.0)), (tf.float32, np.array([1.0, 2.0])),
                                         (tf.int32, np.int64(1))], ids=["float64-scalar", "float64-array", "int64"])
def test_numpy_operand_of_an_operator_takes_the_tensors_dtype(dtype, other):
    assert (tf.placeholder(dtype, [2]) + other).dtype == dtype


@pytest.mark.parametrize("value,dtype,match", [
    (1.5, tf.int32, "Expected int32, but got 1.5 of type 'float'."),
    (1, tf.bool, "Expected bool, but got 1 of type 'int'."),
    (1.0, tf.int32, "Expected int32, but got 1.0 of type 'float'."),
], ids=["1.5-int32", "1-bool", "1.0-int32"])
def test_constant_refuses_python_values_of_another_kind(value, dtype, match):
    with pytest.raises(TypeError) as info:
        tf.constant(value, dtype=dtype)
    assert str(info.value) == match


@pytest.mark.parametrize("value", [np.float32(1.5), np.array([1.5])])
def test_constant_casts_numpy_floats_to_int(value):
    assert tf.Session().run(tf.constant(value, dtype=tf.int32)).tolist() == np.asarray(value).astype(np.int32).tolist()


def test_constant_none_is_a_value_error():
    with pytest.raises(ValueError, match="None values not supported"):
        tf.constant(None)


def test_convert_to_tensor_checks():
    a = tf.constant(1., name="a")
    assert tf.convert_to_tensor(a) is a
    assert tf.convert_to_tensor([1, 2], dtype=tf.float32).dtype == tf.float32
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor with dtype float32"):
        tf.convert_to_tensor(a, dtype=tf.int32)
    with pytest.raises(TypeError, match="onvert Operation 'a' to Tensor"):
        tf.convert_to_tensor(a.op)


@pytest.mark.parametrize("value", [tf.float32, "float32", np.float32, np.dtype("float32")])
def test_as_dtype(value):
    assert tf.as_dtype(value) is tf.float32
    assert tf.as_dtype(value).is_floating and not tf.as_dtype(value).is_integer


def test_dtype_properties():
    assert (tf.int32.is_integer, tf.bool.is_bool, tf.float64 is tf.double, tf.float16 is tf.half) == (True,) * 4
    assert (tf.int64.as_numpy_dtype, tf.bool.as_numpy_dtype, tf.float32.name) == (np.int64, np.bool_, "float32")
    with pytest.raises(TypeError):
        tf.as_dtype("complex")


# --- TensorShape ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dims,text,rep,ndims,defined,n", [
    ([2, None], "(2, None)", "TensorShape([2, None])", 2, False, None),
    ([], "()", "TensorShape([])", 0, True, 1),
    ([3], "(3,)", "TensorShape([3])", 1, True, 3),
    ([None], "(None,)", "TensorShape([None])", 1, False, None),
    (None, "<unknown>", "TensorShape(None)", None, False, None),
    ([2, 3], "(2, 3)", "TensorShape([2, 3])", 2, True, 6),
])
def test_tensor_shape_text_and_properties(dims, text, rep, ndims, defined, n):
    s = tf.TensorShape(dims)
    assert (str(s), repr(s), s.ndims, s.rank, s.is_fully_defined(), s.num_elements()) == (text, rep, ndims, ndims,
                                                                                          defined, n)


@pytest.mark.parametrize("a,b,compatible", [
    ([2, None], [2, 3], True), ([2, None], [3, 3], False), ([2, None], [2], False), (None, [2, 5], True),
    ([None, None], [1, 2], True), ([], [], True), ([], [1], False), ([2, None], None, True),
])
def test_tensor_shape_compatibility(a, b, compatible):
    assert tf.TensorShape(a).is_compatible_with(b) is compatible
    assert tf.TensorShape(a).is_compatible_with(tf.TensorShape(b)) is compatible


@pytest.mark.parametrize("a,b,merged", [([2, None], [None, 4], [2, 4]), (None, [3, 4], [3, 4]),
                                        ([None], None, [None]), ([1, 2], [1, 2], [1, 2])])
def test_tensor_shape_merge(a, b, merged):
    assert tf.TensorShape(a).merge_with(b) == tf.TensorShape(merged)


def test_tensor_shape_merge_of_incompatible_shapes_raises():
    with pytest.raises(ValueError, match=r"Shapes \(2, None\) and \(3, 4\) are not compatible"):
        tf.TensorShape([2, None]).merge_with([3, 4])


@pytest.mark.parametrize("a,b,result", [([2, 3], [2, 4], [2, None]), ([2, 3], [2, 3, 1], None),
                                        ([2, 3], [2, 3], [2, 3]), (None, [1], None), ([None, 1], [2, 1], [None, 1])])
def test_most_specific_compatible_shape(a, b, result):
    assert tf.TensorShape(a).most_specific_compatible_shape(tf.TensorShape(b)) == tf.TensorShape(result)


def test_tensor_shape_misc():
    s = tf.TensorShape([2, 3, 4])
    assert (s[1:], s[-1], s.as_list(), list(s), len(s)) == (tf.TensorShape([3, 4]), 4, [2, 3, 4], [2, 3, 4], 3)
    assert tf.TensorShape([2, 3]).concatenate([4]) == tf.TensorShape([2, 3, 4])
    assert tf.TensorShape([2, 3]) == [2, 3] and tf.TensorShape([2, None]) == tf.TensorShape([2, None])
    assert tf.TensorShape([2, 3]) != tf.TensorShape([2, 4])
    assert tf.TensorShape(None).with_rank(2) == tf.TensorShape([None, None])
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank 3"):
        tf.TensorShape([2, 3]).with_rank(3)
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape."):
        tf.TensorShape(None).as_list()
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank."):
        len(tf.TensorShape(None))
    assert tf.TensorShape(None).dims is None and tf.TensorShape(None).ndims is None


def test_tensor_shape_stores_plain_ints_whatever_it_is_given():
    """A shape's dims are Python ints or None, from a list, a tuple, numpy ints or Dimensions (a list of plain ints
    takes a fast path: it must store the same)."""
    for dims in ([2, None, 3], (2, None, 3), [np.int64(2), None, tf.Dimension(3)], [tf.Dimension(2), None, 3.0]):
        stored = tf.TensorShape(dims)._dims
        assert stored == (2, None, 3) and [type(d) for d in stored] == [int, type(None), int], dims


@pytest.mark.parametrize("a,b,result", [([2, 3], [2, 3], [2, 3]), ([2, None], [2, None], [2, None]),
                                        ([2, 1], [3], [2, 3]), ([None], [3], [3]), ([], [4, 1], [4, 1]),
                                        (None, [2], None)])
def test_static_broadcast_shapes(a, b, result):
    """An elementwise op's static shape (TensorFlow's `BroadcastBinaryOpOutputShapeFn`): equal shapes give
    themselves, a 1 or a missing dimension takes the other's, an unknown one the other's known one."""
    x, y = tf.placeholder(tf.float32, a), tf.placeholder(tf.float32, b)
    assert (x + y).shape == tf.TensorShape(result) and (y * x).shape == tf.TensorShape(result)
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 2"):
        tf.placeholder(tf.float32, [3]) + tf.placeholder(tf.float32, [2])


# --- nest ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("structure,flat", [
    ({"b": 1, "a": 2, "c": [3, 4]}, [2, 1, 3, 4]),
    (P(a=(1, 2), b={"y": 3, "x": 4}), [1, 2, 4, 3]),
    (5, [5]), (None, [None]), ([], []), ([[1, [2]], (3,)], [1, 2, 3]),
])
def test_nest_flatten(structure, flat):
    assert nest.flatten(structure) == flat


def test_nest_pack_sequence_as():
    packed = nest.pack_sequence_as(P(a=0, b=[0, 0]), [1, 2, 3])
    assert packed == P(a=1, b=[2, 3]) and type(packed) is P and type(packed.b) is list
    d = nest.pack_sequence_as({"b": 0, "a": 0}, [1, 2])
    assert d == {"a": 1, "b": 2} and list(d) == ["b", "a"]
    assert nest.pack_sequence_as(7, [3]) == 3
    assert nest.pack_sequence_as((0, (0,)), [1, 2]) == (1, (2,))
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 1 items"):
        nest.pack_sequence_as([0, 0], [1])


def test_nest_expands_indexed_slices_into_their_components():
    # tf.nest with expand_composites=True: values, indices and (when there is one) dense_shape, packed back into an
    # IndexedSlices; two match when their components' dtypes do (the TypeSpec), never a plain tensor.
    v, i32, i64, shape = tf.constant([1.0]), tf.constant([0]), tf.constant([0], tf.int64), tf.constant([4])
    with_shape, without = tf.IndexedSlices(v, i32, shape), tf.IndexedSlices(v, i64)
    structure = {"s": with_shape, "t": [without, v]}
    flat = nest.flatten(structure, expand_composites=True)
    assert flat == [v, i32, shape, v, i64, v] and nest.flatten(structure) == [with_shape, without, v]
    packed = nest.pack_sequence_as(structure, [v, i32, shape, v, i64, v], expand_composites=True)
    assert isinstance(packed["t"][0], tf.IndexedSlices) and packed["t"][0].dense_shape is None
    assert packed["s"].dense_shape is shape and packed["t"][1] is v
    nest.assert_same_structure(with_shape, tf.IndexedSlices(v, i32, shape), expand_composites=True)
    with pytest.raises(TypeError, match="Incompatible CompositeTensor TypeSpecs"):
        nest.assert_same_structure(tf.IndexedSlices(v, i32), without, expand_composites=True)
    with pytest.raises(ValueError, match="not compatible"):
        nest.assert_same_structure(without, v, expand_composites=True)


def test_nest_map_structure():
    assert nest.map_structure(lambda a, b: a + b, {"x": 1, "y": [2]}, {"x": 10, "y": [20]}) == {"x": 11, "y": [22]}


@pytest.mark.parametrize("a,b", [([1, [2]], [3, [4]]), ({"a": 1, "b": [2]}, {"b": [3], "a": 4}),
                                 (P(1, 2), P(3, 4)), ([1, 2], (3, 4))],
                         ids=["lists", "dicts", "namedtuples", "list-tuple"])
def test_nest_assert_same_structure_accepts(a, b):
    nest.assert_same_structure(a, b, check_types=False)
    if type(a) is type(b):
        nest.assert_same_structure(a, b)


@pytest.mark.parametrize("a,b,error,why", [
    ([1, 2], [3, [4]], ValueError, "is a sequence, while"),
    ([1, 2], [3, 4, 5], ValueError, "don't have the same number of elements"),
    ({"a": 1}, {"b": 1}, ValueError, "The two dictionaries don't have the same set of keys"),
    ([1, 2], (3, 4), TypeError, "don't have the same sequence type"),
    (P(1, 2), Q(1, 2), TypeError, "don't have the same sequence type"),
], ids=["nesting", "length", "dict-keys", "list-vs-tuple", "namedtuple-types"])
def test_nest_assert_same_structure_errors(a, b, error, why):
    with pytest.raises(error) as info:
        nest.assert_same_structure(a, b)
    assert str(info.value).startswith("The two structures don't have the same nested structure.")
    assert why in str(info.value)


# --- control dependencies and devices --------------------------------------------------------------
def test_control_dependencies():
    a = tf.constant(1., name="a")
    b = tf.constant(2., name="b")
    with tf.control_dependencies([a]):
        c = tf.constant(3., name="c")
        with tf.control_dependencies([b.op]):
            d = tf.identity(a)
            with tf.control_dependencies(None):
                e = tf.identity(a, name="e")
        f = tf.identity(b, name="f")
    g = tf.identity(b, name="g")
    assert [op.name for op in c.op.control_inputs] == ["a"]
    assert [op.name for op in d.op.control_inputs] == ["b"]  # `a` is a data input already
    assert e.op.control_inputs == [] and g.op.control_inputs == []
    assert [op.name for op in f.op.control_inputs] == ["a"]
    with pytest.raises(TypeError):
        with tf.control_dependencies([1]):
            pass


def test_control_dependency_is_dropped_when_an_input_already_carries_it():
    a = tf.constant(1., name="a")
    b = tf.constant(2., name="b")
    with tf.control_dependencies([a]):
        c = b + 1.  # add/y was created inside the block, so `add` needs no edge of its own
    assert [op.name for op in c.op.inputs[1].op.control_inputs] == ["a"]
    assert c.op.control_inputs == []


def test_device_is_recorded_on_ops():
    a = tf.constant(1.)
    with tf.device("/device:CPU:0"):
        h = tf.identity(a)
        with tf.device("/device:GPU:1"):
            h2 = tf.identity(a)
        h3 = tf.identity(a)
    assert (a.op.device, h.op.device, h2.op.device, h3.op.device, h.device) == (
        "", "/device:CPU:0", "/device:GPU:1", "/device:CPU:0", "/device:CPU:0")


def test_device_strings_are_canonical_and_none_clears():
    a = tf.constant(1.)
    with tf.device("/cpu:0"):
        h = tf.identity(a)
        with tf.device(None):
            h2 = tf.identity(a)
    assert (h.op.device, h2.op.device) == ("/device:CPU:0", "")


# --- default graphs -------------------------------------------------------------------------------
def test_reset_default_graph_and_graph_as_default():
    g = tf.get_default_graph()
    tf.constant(1.)
    g2 = tf.Graph()
    with g2.as_default():
        assert tf.get_default_graph() is g2
        z = tf.constant(3.)
        with pytest.raises(AssertionError, match="Do not use tf.reset_default_graph"):
            tf.reset_default_graph()
    assert tf.get_default_graph() is g and z.graph is g2 and len(g2.get_operations()) == 1
    with pytest.raises(ValueError, match="must be from the same graph"):
        tf.add(tf.constant(1.), z)
    tf.reset_default_graph()
    assert tf.get_default_graph() is not g and tf.get_default_graph().get_operations() == []
    assert tf.constant(1.).name == "Const:0"


# --- the Tensor protocol ------------------------------------------------------------------------
def test_tensor_as_python_bool_raises_type_error():
    x = _x()
    with pytest.raises(TypeError, match="as a Python `bool` is not allowed"):
        bool(x)
    with pytest.raises(TypeError):
        if x < 3:
            pass
    with pytest.raises(TypeError, match="len is not well defined for a symbolic Tensor"):
        len(x)


@pytest.mark.parametrize("value", [1.0, [1.0, 2.0]])
def test_iterating_a_symbolic_tensor_is_not_allowed_in_graph_mode(value):
    # TensorFlow 2.21 graph mode refuses even a static-length vector: `for x in t`, `a, b = t`, `list(t)`
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over a symbolic `tf.Tensor` is "
                                                                       "not allowed: Const:0 has no value"):
        list(tf.constant(value))
    assert issubclass(tf.errors.OperatorNotAllowedInGraphError, TypeError)


def test_tensors_are_hashable_and_compare_by_identity():
    a = tf.constant(1.)
    b = tf.constant(1.)
    assert (a == a, a == b, a != b, a == 1.0) == (True, False, True, False)
    assert hash(a) == hash(a) and len({a, b, a}) == 2
    assert {a: 1, b: 2}[a] == 1


def test_noop_cast_takes_no_name():
    x = tf.placeholder(tf.float32)
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(x, tf.int32).op.name == "Cast"
