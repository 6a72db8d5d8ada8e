"""Collections: named lists a graph keeps (`tf.compat.v1.add_to_collection`, `get_collection`, `GraphKeys`).

Variables register themselves in `GraphKeys.GLOBAL_VARIABLES` / `TRAINABLE_VARIABLES`; programs add
their own (losses, summaries, ...). A function graph shares its outer graph's collections.
"""
from .ops import get_default_graph


class GraphKeys:
    """The standard collection names of tf.compat.v1.GraphKeys that cfnb's programs use."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MODEL_VARIABLES = "model_variables"
    UPDATE_OPS = "update_ops"
    TRAIN_OP = "train_op"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SUMMARIES = "summaries"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    ASSET_FILEPATHS = "asset_filepaths"


def add_to_collection(name, value):
    """`tf.add_to_collection`: add `value` to a collection of the default graph."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    """Add `value` to each collection in `names` (a single name counts once)."""
    names = (names,) if isinstance(names, str) else set(names)
    for name in names:
        add_to_collection(name, value)


def get_collection(key, scope=None):
    """A copy of the collection: items whose name matches `scope` (a regex, from the start) if given."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    """The collection's list itself: appending to it adds to the collection."""
    return get_default_graph().get_collection_ref(key)
