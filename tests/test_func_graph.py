"""A function nested in a function captures a tensor of the root graph once, however often it uses it."""
import cfnb


def test_a_cond_in_a_while_body_that_uses_a_root_tensor_twice_captures_it_once():
    cfnb.enable_control_flow_v2()
    x = cfnb.constant(1.5, cfnb.float64)

    def body(k, y):
        return k + 1, cfnb.cond(cfnb.equal(k % 2, 0), lambda: y + x * x, lambda: y - x)

    k, y = cfnb.while_loop(lambda k, y: k < 5, body, [cfnb.constant(0), cfnb.constant(0.0, cfnb.float64)])
    then = next(f for f in cfnb.get_default_graph()._functions.values() if "body" in f.name)
    branch = next(f for f in then._functions.values() if "true" in f.name)
    assert len(branch.captures) == 2  # y and x, x once
    assert cfnb.Session().run(y) == 3 * 1.5 * 1.5 - 2 * 1.5
