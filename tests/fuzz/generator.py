"""Random nested cond/while programs for differential fuzzing (cfnb against itself and against TensorFlow).

`generate(seed)` returns a `Program`: the Python source of a function `build(tf, x0, x1, n0, k1)` written
against the tf.compat.v1 graph API, so the same text runs with `import cfnb as tf` and with real TensorFlow,
plus the values to feed. The source is the program's whole identity: the corpus stores it, not the seed, so
the recorded answers stay valid whatever later happens to this generator.

What a program contains (depth of nested functions <= 3):
- inputs: float32 scalar `x0`, float32 3-vector `x1`, int32 scalar `n0` (0..3, used as a trip count too),
  int32 3-vector `k1`; constants of both dtypes and shapes;
- ops `+ - * maximum where reduce_sum cast` and the comparisons that make `where` and `cond` predicates;
- `tf.cond` whose branches use tensors from every enclosing function (several times, so a nested function
  captures one outer tensor more than once) or return an outer tensor as is;
- `tf.while_loop` with a counter and bounded trip count (`i < c`, c in 0..3, or `i < n0`), zero-trip included,
  sometimes `maximum_iterations` or `parallel_iterations=1`, sometimes a cond that also reads an outer tensor or
  stops early on the loop's own values; conds inside loops and loops inside conds.

Values stay finite: every `*` has an input or a constant (|v| <= 2) as one operand, so at most 27 nested trips
multiply a value by at most 2 each. Inputs and constants are multiples of 0.5, which makes ties (maximum, where)
common and most float arithmetic exact.

`build` returns a dict of fetched tensors; `harness.run_program` adds the gradient of the sum of some of its
float outputs with respect to x0 and x1.
"""
import dataclasses
import hashlib
import random

FLOAT, INT = "float32", "int32"
SCALAR, VEC = (), (3,)
MAX_DEPTH = 3

# The program's inputs: name -> (dtype, shape). Their values are drawn per program.
INPUTS = {"x0": (FLOAT, SCALAR), "x1": (FLOAT, VEC), "n0": (INT, SCALAR), "k1": (INT, VEC)}
FLOAT_INPUTS = ["x0", "x1"]


@dataclasses.dataclass
class Program:
    source: str
    feeds: dict  # input name -> Python number or list

    def as_json(self):
        return {"source": self.source, "feeds": self.feeds}

    @property
    def digest(self):
        """A short hash of source and feeds: tells a stale recording from a current one."""
        return hashlib.sha1(repr((self.source, self.feeds)).encode()).hexdigest()[:12]


@dataclasses.dataclass
class Var:
    name: str
    dtype: str
    shape: tuple
    small: bool = False  # an input or a constant: may be a factor of `*`


def _half(rng, lo=-4, hi=4):
    return rng.randint(lo, hi) / 2


class _Generator:
    def __init__(self, rng):
        self.rng = rng
        self.counter = 0
        self.lines = []

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # --- expressions -------------------------------------------------------------------------
    def constant(self, dtype, shape):
        rng = self.rng
        draw = (lambda: _half(rng)) if dtype == FLOAT else (lambda: rng.randint(-2, 2))
        value = draw() if shape == SCALAR else [draw() for _ in range(3)]
        return f"tf.constant({value!r})"  # Python floats make float32 and ints int32, in TensorFlow as in cfnb

    def leaf(self, env, dtype, shape, small_only=False):
        options = [v for v in env if v.dtype == dtype and v.shape == shape and (v.small or not small_only)]
        if options and self.rng.random() < 0.8:
            computed = [v for v in options if not v.small]  # prefer what the program computed: less dead code
            return self.rng.choice(computed if computed and self.rng.random() < 0.7 else options).name
        return self.constant(dtype, shape)

    def expr(self, env, dtype, shape, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.3:
            return self.leaf(env, dtype, shape)
        kind = rng.choices(["binary", "where", "reduce_sum", "cast"], [6, 2, 1.5, 1.5])[0]
        if kind == "reduce_sum" and shape == SCALAR:
            return f"tf.reduce_sum({self.expr(env, dtype, VEC, depth - 1)})"
        if kind == "cast":
            other = INT if dtype == FLOAT else FLOAT
            return f"tf.cast({self.expr(env, other, shape, depth - 1)}, tf.{dtype})"
        if kind == "where":
            pred = self.predicate(env, shape, depth - 1)
            a, b = self.expr(env, dtype, shape, depth - 1), self.expr(env, dtype, shape, depth - 1)
            return f"tf.where({pred}, {a}, {b})"
        op = rng.choice(["+", "-", "*", "maximum"])
        shapes = [(shape, shape)] if shape == SCALAR else [(VEC, VEC), (VEC, SCALAR), (SCALAR, VEC)]
        sa, sb = rng.choice(shapes)
        a = self.expr(env, dtype, sa, depth - 1)
        if op == "*":  # one factor is an input or a constant, so loops cannot overflow
            b = self.leaf(env, dtype, sb, small_only=True)
            a, b = (a, b) if rng.random() < 0.5 else (b, a)
            return f"({a} * {b})"
        b = self.expr(env, dtype, sb, depth - 1)
        if op == "maximum":
            return f"tf.maximum({a}, {b})"
        return f"({a} {op} {b})"

    def predicate(self, env, shape, depth):
        dtype = self.rng.choice([FLOAT, INT])
        cmp = self.rng.choice(["tf.less", "tf.greater", "tf.less_equal", "tf.greater_equal"])
        return f"{cmp}({self.expr(env, dtype, shape, depth)}, {self.expr(env, dtype, shape, depth)})"

    def scalar_predicate(self, env):
        if self.rng.random() < 0.5:
            return self.predicate(env, SCALAR, 1)
        dtype = self.rng.choice([FLOAT, INT])
        return f"tf.less(tf.reduce_sum({self.expr(env, dtype, VEC, 1)}), {self.constant(dtype, SCALAR)})"

    # --- statements --------------------------------------------------------------------------
    def random_type(self):
        return self.rng.choice([FLOAT, INT]), self.rng.choice([SCALAR, VEC])

    def block(self, env, indent, depth, n_statements):
        """Statements appended to self.lines; returns the env extended with what they define."""
        env = list(env)
        for _ in range(n_statements):
            kinds, weights = ["assign"], [3]
            if depth < MAX_DEPTH:
                kinds += ["cond", "while"]
                weights += [2, 2]
            kind = self.rng.choices(kinds, weights)[0]
            make = {"assign": self.assign, "cond": self.cond, "while": self.while_}[kind]
            env += make(env, indent, depth)
        return env

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def assign(self, env, indent, depth):
        dtype, shape = self.random_type()
        name = self.fresh("v")
        self.emit(indent, f"{name} = {self.expr(env, dtype, shape, 2)}")
        return [Var(name, dtype, shape)]

    def cond(self, env, indent, depth):
        out_types = [self.random_type() for _ in range(self.rng.choice([1, 1, 2]))]
        fns = []
        for which in ("true", "false"):
            fn = self.fresh(f"{which}_fn")
            self.emit(indent, f"def {fn}():")
            inner = self.block(env, indent + 1, depth + 1, self.rng.randint(0, 2))
            outs = [self.expr(inner, dt, sh, self.rng.choice([0, 1, 2])) for dt, sh in out_types]
            self.emit(indent + 1, f"return {', '.join(outs)}" + ("," if len(outs) > 1 else ""))
            fns.append(fn)
        names = [self.fresh("c") for _ in out_types]
        pred = self.scalar_predicate(env)
        self.emit(indent, f"{', '.join(names)}{',' if len(names) > 1 else ''} = tf.cond({pred}, {fns[0]}, {fns[1]})")
        return [Var(n, dt, sh) for n, (dt, sh) in zip(names, out_types)]

    def while_(self, env, indent, depth):
        rng = self.rng
        var_types = [self.random_type() for _ in range(rng.choice([1, 2, 2]))]
        i, params = self.fresh("i"), [self.fresh("w") for _ in var_types]
        limit = rng.choice(["0", "1", "2", "3", "n0", "n0"])
        cond_fn, body_fn = self.fresh("loop_cond"), self.fresh("loop_body")
        loop_env = env + [Var(p, dt, sh) for p, (dt, sh) in zip(params, var_types)] + [Var(i, INT, SCALAR)]
        # The cond may read an outer tensor (captured by the cond function), or stop early on the loop's values.
        form = rng.choices(["plain", "outer", "early"], [5, 2, 2])[0]
        self.emit(indent, f"def {cond_fn}({', '.join([i] + params)}):")
        if form == "outer":
            pred = self.scalar_predicate(env)
            self.emit(indent + 1,
                      f"return tf.logical_or(tf.less({i}, {limit}), tf.logical_and(tf.less({i}, 1), {pred}))")
        elif form == "early":
            pred = self.scalar_predicate(loop_env)
            self.emit(indent + 1, f"return tf.logical_and(tf.less({i}, {limit}), {pred})")
        else:
            self.emit(indent + 1, f"return tf.less({i}, {limit})")
        self.emit(indent, f"def {body_fn}({', '.join([i] + params)}):")
        inner = self.block(loop_env, indent + 1, depth + 1, rng.randint(0, 2))
        news = [self.expr(inner, dt, sh, rng.choice([1, 2])) for dt, sh in var_types]
        self.emit(indent + 1, f"return [{', '.join([f'{i} + 1'] + news)}]")
        inits = [self.expr(env, dt, sh, 1) for dt, sh in var_types]
        outs = [self.fresh("r") for _ in var_types]
        kwargs = f", maximum_iterations={rng.randint(0, 3)}" if rng.random() < 0.2 else ""
        kwargs += ", parallel_iterations=1" if rng.random() < 0.1 else ""
        self.emit(indent, f"_, {', '.join(outs)} = tf.while_loop({cond_fn}, {body_fn}, "
                          f"[tf.constant(0), {', '.join(inits)}]{kwargs})")
        return [Var(n, dt, sh) for n, (dt, sh) in zip(outs, var_types)]

    def program(self):
        env = [Var(name, dt, sh, small=True) for name, (dt, sh) in INPUTS.items()]
        self.emit(0, f"def build(tf, {', '.join(INPUTS)}):")
        defined = self.block(env, 1, 0, self.rng.randint(1, 3))[len(env):]
        # Fetch some of what the top level defined, not always all: what is not fetched is pruned.
        fetched = [v for v in defined[-4:] if self.rng.random() < 0.75]
        final_type = self.random_type()
        final = self.expr(defined + env, *final_type, 2)
        items = [f"{v.name!r}: {v.name}" for v in fetched] + [f"'out': {final}"]
        self.emit(1, "return {" + ", ".join(items) + "}")
        return "\n".join(self.lines) + "\n"



def generate(seed):
    """The program for `seed` (deterministic: same seed, same text and feeds)."""
    rng = random.Random(seed)
    source = _Generator(rng).program()
    feeds = {"x0": _half(rng), "x1": [_half(rng) for _ in range(3)], "n0": rng.randint(0, 3),
             "k1": [rng.randint(-2, 2) for _ in range(3)]}
    return Program(source, feeds)


if __name__ == "__main__":
    import sys
    p = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(p.source)
    print(p.feeds)
