"""The second fuzz family: richer programs (TensorArrays, scan/map_fn/foldl/foldr, case, devices) for differential
fuzzing of values, first- and second-order gradients against TensorFlow.

`generate(seed)` returns a `Program`: the Python source of `build(tf, x, w, n)` written against the tf.compat.v1
graph API, so the same text runs with `import cfnb as tf` and with `import tensorflow.compat.v1 as tf`, and the
values to feed. As in tests/fuzz/generator.py, the source and feeds are the program's identity (the corpus stores
them, not the seed).

Inputs: float32 vector `x` [3], float32 matrix `w` [3, 3] (|entries| <= 0.5), int32 scalar `n` (0..3, a trip count
and a branch index). Every computed variable is a float32 [3] vector; a program is a list of statements, each of:
- an expression: tanh / sigmoid / exp(tanh(.)) / stop_gradient / `* 0.5`, `+`, `* tanh(.)`, maximum, a small
  matmul `tanh(reshape(matmul(reshape(a, [1, 3]), w), [3]))`, gather by the input indices;
- a `while_loop` (trip count 0..3 or `n`; sometimes `maximum_iterations`, `parallel_iterations`, or a growing
  accumulator declared with `shape_invariants`) whose body gathers by the loop index and may nest any statement;
- a TensorArray written in a loop (size static or `n`, element_shape given or not) and read back with stack,
  concat, gather or read; a TensorArray filled with unstack (read by the loop index) or scatter;
- `map_fn` / `scan` / `foldl` / `foldr` over a vector, their functions nesting one another and capturing outer
  tensors;
- `cond`, `case` and `switch_case` whose branches nest statements;
- any statement, at any depth, may be placed on the second CPU (`with tf.device("/cpu:1"):`).
Values stay bounded: products have a tanh or a constant (|c| <= 1) as a factor and exp only sees tanh's range.
"""
import dataclasses
import hashlib
import random

MAX_DEPTH = 2
DEVICE = "/cpu:1"


@dataclasses.dataclass
class Program:
    source: str
    feeds: dict  # "x": [3 floats], "w": [[3 floats] x 3], "n": int

    def as_json(self):
        return {"source": self.source, "feeds": self.feeds}

    @property
    def digest(self):
        return hashlib.sha1(repr((self.source, self.feeds)).encode()).hexdigest()[:12]


def _quarter(rng, lo=-4, hi=4):
    return rng.randint(lo, hi) / 4


class _Gen:
    def __init__(self, rng):
        self.rng = rng
        self.counter = 0
        self.lines = []

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def chance(self, p):
        return self.rng.random() < p

    # --- expressions: float32 [3] vectors (vec) and scalars (scal) ---------------------------------------------
    def const_vec(self):
        return f"tf.constant({[_quarter(self.rng) for _ in range(3)]!r})"

    def leaf(self, env):
        if env and self.chance(0.85):
            return self.rng.choice(env[-4:] if self.chance(0.6) else env)
        return self.const_vec()

    def vec(self, env, depth=2, scalars=()):
        rng = self.rng
        if depth <= 0 or self.chance(0.25):
            return self.leaf(env)
        kind = rng.choices(["unary", "binary", "matmul", "gather", "scale"], [4, 4, 1.5, 1, 1.5 if scalars else 0])[0]
        a = self.vec(env, depth - 1, scalars)
        if kind == "unary":
            fn = rng.choice(["tf.tanh({})", "tf.sigmoid({})", "tf.exp(tf.tanh({}))", "tf.stop_gradient({})",
                             "({} * 0.5)"])
            return fn.format(a)
        if kind == "matmul":
            return f"tf.tanh(tf.reshape(tf.matmul(tf.reshape({a}, [1, 3]), w), [3]))"
        if kind == "gather":
            return f"tf.gather({a}, {[rng.randint(0, 2) for _ in range(3)]!r})"
        if kind == "scale":
            return f"({a} * tf.tanh({rng.choice(scalars)}))"
        b = self.vec(env, depth - 1, scalars)
        op = rng.choice(["({} + {})", "({} * tf.tanh({}))", "tf.maximum({}, {})", "({} - {})"])
        return op.format(a, b)

    def scal(self, env, scalars, depth=1):
        if scalars and self.chance(0.5):
            s = self.rng.choice(scalars)
            return s if self.chance(0.5) else f"tf.tanh({s} * 0.5)"
        return f"tf.reduce_sum({self.vec(env, depth, scalars)})"

    def pred(self, env):
        return f"tf.less(tf.reduce_sum({self.vec(env, 1)}), {_quarter(self.rng, -6, 6)!r})"

    # --- statements: each defines one new vector and returns its name -------------------------------------------
    def block(self, env, indent, depth, count, scalars=()):
        env = list(env)
        for _ in range(count):
            env.append(self.statement(env, indent, depth, scalars))
        return env

    def statement(self, env, indent, depth, scalars=()):
        kinds = ["assign"] + (["while", "ta_write", "ta_fill", "hof", "branch"] if depth < MAX_DEPTH else [])
        weights = [3] + ([2, 2, 1, 2, 2] if depth < MAX_DEPTH else [])
        kind = self.rng.choices(kinds, weights)[0]
        if kind != "assign" and self.chance(0.15):
            self.emit(indent, f"with tf.device({DEVICE!r}):")
            indent += 1
        return getattr(self, "while_" if kind == "while" else kind)(env, indent, depth, scalars)

    def assign(self, env, indent, depth, scalars):
        name = self.fresh("v")
        self.emit(indent, f"{name} = {self.vec(env, 2, scalars)}")
        return name

    def limit(self):
        return self.rng.choice(["0", "1", "2", "3", "n", "n"])

    def while_(self, env, indent, depth, scalars, kind="plain"):
        rng = self.rng
        i, a, b = self.fresh("i"), self.fresh("a"), self.fresh("b")
        grow = self.chance(0.2)
        params = [i, a, b] + ([self.fresh("acc")] if grow else [])
        cond_fn, body_fn = self.fresh("cond"), self.fresh("body")
        lim = self.limit()
        self.emit(indent, f"def {cond_fn}({', '.join(params)}):")
        if self.chance(0.2):
            self.emit(indent + 1, f"return tf.logical_and(tf.less({i}, {lim}), {self.pred(env + [a, b])})")
        else:
            self.emit(indent + 1, f"return tf.less({i}, {lim})")
        self.emit(indent, f"def {body_fn}({', '.join(params)}):")
        g = self.fresh("g")
        self.emit(indent + 1, f"{g} = tf.gather({a}, tf.mod({i}, 3))")
        inner = self.block(env + [a, b], indent + 1, depth + 1, rng.randint(0, 2), list(scalars) + [g])
        news = [f"{i} + 1", self.vec(inner, 2, list(scalars) + [g]), self.vec(inner, 1, list(scalars) + [g])]
        if grow:
            news.append(f"tf.concat([{params[3]}, tf.reshape({g}, [1])], 0)")
        self.emit(indent + 1, f"return [{', '.join(news)}]")
        inits = ["tf.constant(0)", self.vec(env, 1, scalars), self.vec(env, 1, scalars)]
        kwargs = ""
        if grow:
            inits.append("tf.zeros([0])")
            kwargs += (", shape_invariants=[tf.TensorShape([]), tf.TensorShape([3]), tf.TensorShape([3]), "
                       "tf.TensorShape([None])]")
        if self.chance(0.25):
            kwargs += f", maximum_iterations={rng.choice(['0', '1', '2', 'n'])}"
        if self.chance(0.15):
            kwargs += f", parallel_iterations={rng.choice([1, 2])}"
        outs = [self.fresh("r") for _ in params]
        self.emit(indent, f"{', '.join(outs)} = tf.while_loop({cond_fn}, {body_fn}, [{', '.join(inits)}]{kwargs})")
        name = self.fresh("v")
        tail = f" + tf.reduce_sum({outs[3]})" if grow else ""
        self.emit(indent, f"{name} = {outs[1]} * 0.5 + {outs[2]}{tail}")
        return name

    def ta_write(self, env, indent, depth, scalars):
        rng = self.rng
        ta, i, t, a = self.fresh("ta"), self.fresh("i"), self.fresh("t"), self.fresh("a")
        size = rng.choice(["0", "1", "2", "3", "n"])
        shape = ", element_shape=[3]" if self.chance(0.5) else ""
        self.emit(indent, f"{ta} = tf.TensorArray(tf.float32, size={size}{shape})")
        body_fn = self.fresh("body")
        self.emit(indent, f"def {body_fn}({i}, {t}, {a}):")
        g = self.fresh("g")
        self.emit(indent + 1, f"{g} = tf.gather({a}, tf.mod({i}, 3))")
        inner = self.block(env + [a], indent + 1, depth + 1, rng.randint(0, 1), list(scalars) + [g])
        value = self.vec(inner, 2, list(scalars) + [g])
        self.emit(indent + 1, f"return [{i} + 1, {t}.write({i}, {value}), {self.vec(inner, 1, [g])}]")
        r_t, r_a = self.fresh("rt"), self.fresh("ra")
        self.emit(indent, f"_, {r_t}, {r_a} = tf.while_loop(lambda {i}, {t}, {a}: tf.less({i}, {size}), {body_fn}, "
                          f"[tf.constant(0), {ta}, {self.vec(env, 1, scalars)}])")
        name = self.fresh("v")
        read = rng.choice(["stack", "stack", "concat", "gather", "read"] if size not in ("0", "n") else
                          ["stack", "stack", "concat"])
        if read == "stack":
            self.emit(indent, f"{name} = tf.reduce_sum({r_t}.stack(), 0) + {r_a}")
        elif read == "concat":
            self.emit(indent, f"{name} = tf.reduce_sum({r_t}.concat()) * {r_a}")
        elif read == "gather":
            idx = [rng.randrange(int(size)) for _ in range(2)]
            self.emit(indent, f"{name} = tf.reduce_sum({r_t}.gather({idx!r}), 0) - {r_a}")
        else:
            self.emit(indent, f"{name} = {r_t}.read({rng.randrange(int(size))}) + {r_a}")
        return name

    def ta_fill(self, env, indent, depth, scalars):
        rng = self.rng
        name, src = self.fresh("v"), self.vec(env, 1, scalars)
        if self.chance(0.5):
            perm = rng.sample(range(3), 3)
            self.emit(indent, f"{name} = tf.TensorArray(tf.float32, size=3).scatter({perm!r}, {src}).stack()")
            return name
        tu, i, a = self.fresh("tu"), self.fresh("i"), self.fresh("a")
        self.emit(indent, f"{tu} = tf.TensorArray(tf.float32, size=3).unstack({src})")
        body_fn = self.fresh("body")
        self.emit(indent, f"def {body_fn}({i}, {a}):")
        e = self.fresh("e")
        self.emit(indent + 1, f"{e} = {tu}.read(tf.mod({i}, 3))")
        self.emit(indent + 1, f"return [{i} + 1, {self.vec(env + [a], 2, list(scalars) + [e])}]")
        self.emit(indent, f"_, {name} = tf.while_loop(lambda {i}, {a}: tf.less({i}, {self.limit()}), {body_fn}, "
                          f"[tf.constant(0), {self.vec(env, 1, scalars)}])")
        return name

    def hof(self, env, indent, depth, scalars):
        rng = self.rng
        kind = rng.choice(["map_fn", "scan", "foldl", "foldr"])
        fn, e, acc = self.fresh("fn"), self.fresh("e"), self.fresh("acc")
        elems = self.vec(env, 1, scalars)
        name = self.fresh("v")
        if kind == "map_fn":
            self.emit(indent, f"def {fn}({e}):")
            inner = self.block(env, indent + 1, depth + 1, rng.randint(0, 1), list(scalars) + [e])
            self.emit(indent + 1, f"return {self.scal(inner, list(scalars) + [e])}")
            self.emit(indent, f"{name} = tf.map_fn({fn}, {elems})")
        elif kind == "scan":
            self.emit(indent, f"def {fn}({acc}, {e}):")
            inner = self.block(env, indent + 1, depth + 1, rng.randint(0, 1), list(scalars) + [e, acc])
            self.emit(indent + 1, f"return {acc} * 0.5 + {self.scal(inner, list(scalars) + [e])}")
            self.emit(indent, f"{name} = tf.scan({fn}, {elems}, initializer=tf.constant({_quarter(rng)!r}))")
        else:
            self.emit(indent, f"def {fn}({acc}, {e}):")
            inner = self.block(env + [acc], indent + 1, depth + 1, rng.randint(0, 1), list(scalars) + [e])
            self.emit(indent + 1, f"return {acc} * 0.5 + {self.vec(inner, 2, list(scalars) + [e])}")
            self.emit(indent, f"{name} = tf.{kind}({fn}, {elems}, initializer={self.vec(env, 1, scalars)})")
        return name

    def branch(self, env, indent, depth, scalars):
        rng = self.rng
        kind = rng.choice(["cond", "case", "switch_case"])
        fns = []
        for _ in range({"cond": 2, "case": 3, "switch_case": rng.choice([2, 3])}[kind]):
            fn = self.fresh("branch")
            self.emit(indent, f"def {fn}():")
            inner = self.block(env, indent + 1, depth + 1, rng.randint(0, 1), scalars)
            self.emit(indent + 1, f"return {self.vec(inner, 2, scalars)}")
            fns.append(fn)
        name = self.fresh("v")
        if kind == "cond":
            self.emit(indent, f"{name} = tf.cond({self.pred(env)}, {fns[0]}, {fns[1]})")
        elif kind == "case":
            pairs = f"[({self.pred(env)}, {fns[0]}), ({self.pred(env)}, {fns[1]})]"
            self.emit(indent, f"{name} = tf.case({pairs}, default={fns[2]}, exclusive={rng.choice([False, True])})")
        else:
            index = rng.choice(["n", "tf.mod(n, 2)", "tf.constant(1)"])
            self.emit(indent, f"{name} = tf.switch_case({index}, [{', '.join(fns)}])")
        return name

    def program(self):
        self.emit(0, "def build(tf, x, w, n):")
        env = self.block(["x"], 1, 0, self.rng.randint(1, 2))[1:]
        fetched = [v for v in env[-3:] if self.chance(0.5)]
        items = [f"{v!r}: {v}" for v in fetched] + [f"'out': {env[-1]} + {self.vec(env + ['x'], 2)}"]
        self.emit(1, "return {" + ", ".join(items) + "}")
        return "\n".join(self.lines) + "\n"




def generate(seed):
    """The program for `seed` (deterministic: same seed, same text and feeds)."""
    rng = random.Random(seed)
    source = _Gen(rng).program()
    feeds = {"x": [_quarter(rng) for _ in range(3)], "w": [[_quarter(rng, -2, 2) for _ in range(3)] for _ in range(3)],
             "n": rng.randint(0, 3)}
    return Program(source, feeds)


if __name__ == "__main__":
    import sys
    p = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(p.source)
    print(p.feeds)
