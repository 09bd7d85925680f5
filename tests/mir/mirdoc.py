"""tests/mir/mirdoc.py: the rake.mir document around one hand-written
function, for the generators of tests/48-mir-cfg.bats."""
import json


def function(name, kind, args, result, blocks, vregs, consts=()):
    """A function: args [(name, type, reg, vreg)], result (type, reg),
    blocks [(label, code, term)]."""
    return {"name": name, "kind": kind, "loc": "1:1",
            "args": [{"name": a, "type": t, "reg": r, "vreg": v} for a, t, r, v in args],
            "result": {"type": result[0], "reg": result[1]}, "vregs": vregs, "fmas": 0,
            "consts": list(consts),
            "blocks": [{"label": l, "code": c, "term": t} for l, c, t in blocks]}


def document(target, source, func):
    """The unallocated document of one function, as JSON text."""
    return json.dumps({"ir": "rake.mir", "version": 2, "source": source, "target": target,
                       "allocated": False, "functions": [func]}, indent=1)


def vec(n, written=False):
    """Vector virtual register n as an operand, read or (written) written."""
    return {"v": n, "class": "vec", "access": "w"} if written else {"v": n, "class": "vec"}


RET = {"kind": "ret", "loc": "1:1"}
ONES = {"size": 32, "words": ["0x3f800000"] * 8}
