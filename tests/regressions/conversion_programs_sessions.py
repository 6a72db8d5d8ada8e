"""Conversion programs: the default session, Tensor.eval and Operation.run (see conversion_programs.py)."""
from .conversion_registry import program


# --- the default session, Tensor.eval and Operation.run (ops._default_session_stack, session.py) ----------------
@program
def default_session_nesting(tf):
    s1, s2 = tf.Session(), tf.Session()
    with s1.as_default():
        with s2.as_default():
            with s1.as_default():
                pass
            inner = tf.get_default_session()
        outer = tf.get_default_session()
    return {"inner_is_s2": inner is s2, "outer_is_s1": outer is s1, "none_after": tf.get_default_session() is None}


@program(match="Nesting violated for default stack of")
def default_session_nesting_violated(tf):
    s1, s2 = tf.Session(), tf.Session()
    first, second = s1.as_default(), s2.as_default()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)


@program
def operation_run_without_default_session(tf):
    tf.no_op().run()


@program
def tensor_eval_without_default_session(tf):
    tf.constant(1).eval()


@program
def tensor_eval_in_default_session_of_other_graph(tf):
    c = tf.constant(1)
    with tf.Graph().as_default():
        sess = tf.Session()
    with sess.as_default():
        c.eval()


@program
def operation_run_in_default_session_of_other_graph(tf):
    op = tf.no_op()
    with tf.Graph().as_default():
        sess = tf.Session()
    with sess.as_default():
        op.run()


@program
def tensor_eval_in_given_session_of_other_graph(tf):
    c = tf.constant(1)
    with tf.Graph().as_default():
        sess = tf.Session()
    c.eval(session=sess)


@program
def operation_run_in_given_session_of_other_graph(tf):
    op = tf.no_op()
    with tf.Graph().as_default():
        sess = tf.Session()
    op.run(session=sess)


@program
def eval_and_run_in_default_session(tf):
    v = tf.Variable(2)
    with tf.Session() as sess:
        v.initializer.run()
        value = (v + 1).eval()
        default = tf.get_default_session() is sess
    return {"value": value.item(), "default": default}


@program
def session_context_not_reentrant(tf):
    sess = tf.Session()
    with sess:
        with sess:
            pass


@program
def session_as_default_is_reentrant(tf):
    sess = tf.Session()
    with sess.as_default():
        with sess.as_default():
            pass
        with sess:
            inner = tf.get_default_session() is sess
        after = tf.get_default_session() is sess
    return {"inner": inner, "after": after, "none_after": tf.get_default_session() is None}
