# SPDX-License-Identifier: MIT
"""rcl_prof.folded: folded-stack lines from the dumps' stacks."""
import unittest

from helpers import FakeSymbols, lock_entry, profile
from rcl_prof.folded import folded_lines, folded_text, frame_names

APP = "/bin/app"
LIB = "/usr/lib/librcl/librclprof.so"


def proc(stacks, sample=1, timed=1):
    """Pid 1 at 1 GHz (1 cycle = 1 ns); site 1 is lock "idm"."""
    return {"pid": 1, "exe": APP, "ns": lambda c: c * 1.0,
            "sample": sample, "site_rows": {1: {"id": "idm"}},
            "sites": {1: {"stat": {"timed": timed}}}, "stacks": stacks}


def stack(frames, wait=0, hold=0):
    """@frames innermost first, as dumped: (return address offset, dladdr
    symbol, object)."""
    return {"site": 1, "wait": wait, "nwaits": 1, "hold": hold,
            "nholds": 1, "frames": frames}


class Folded(unittest.TestCase):
    def rep(self, hold_total=0.0, name="m;x"):
        return profile([lock_entry(id="idm", name=name, hold_ns={
            "total": hold_total, "avg": 0.0, "max": 0.0})])

    def test_root_first_library_frames_dropped(self):
        # innermost first: the library's wrapper, then 0x11, 0x21, 0x31
        frames = [(0x5, None, LIB), (0x11, None, APP), (0x21, None, APP),
                  (0x31, None, "/proc/self/exe")]
        p = proc([stack(frames, wait=1500, hold=20)])
        out = folded_lines([p], self.rep(), FakeSymbols())
        # call sites are return address - 1; /proc/self/exe is the exe;
        # ';' in a lock name would split it
        self.assertEqual(out, {
            "wait;m:x;fn_30 [file.c:48];fn_20 [file.c:32];"
            "fn_10 [file.c:16]": 1500.0,
            "hold;m:x;fn_30 [file.c:48];fn_20 [file.c:32];"
            "fn_10 [file.c:16]": 20.0})

    def test_same_stack_adds_up(self):
        frames = [(0x11, None, APP)]
        p = proc([stack(frames, wait=10), stack(frames, wait=5, hold=1)])
        out = folded_lines([p], self.rep(name="m"), FakeSymbols())
        self.assertEqual(out, {"wait;m;fn_10 [file.c:16]": 15.0,
                               "hold;m;fn_10 [file.c:16]": 1.0})

    def test_inlined_calls_and_no_symbols(self):
        syms = FakeSymbols(inl={(APP, 0x10): [("inner", "/s/a.c", 7),
                                              ("outer", "/s/a.c", 20)]})
        self.assertEqual(frame_names(syms, APP, 0x10, None),
                         ["outer [a.c:20]", "inner [a.c:7]"])
        syms.code[(APP, 0x40)] = (None, None, None)
        syms.inl[(APP, 0x40)] = []
        self.assertEqual(frame_names(syms, APP, 0x40, None), ["app+0x40"])
        self.assertEqual(frame_names(syms, APP, 0x40, "dl_fn"), ["dl_fn"])

    def test_unknown_stack_and_site(self):
        p = proc([stack([(0x5, None, LIB)], wait=3),
                  dict(stack([(0x11, None, APP)], wait=9), site=2)])
        out = folded_lines([p], self.rep(name="m"), FakeSymbols())
        self.assertEqual(out, {"wait;m;[unknown stack]": 3.0})

    def test_sampled_holds_scaled(self):
        # --sample 4: the stacks' 100 ns of timed holds stand for the
        # report's 400 ns, in the stacks' proportions
        p = proc([stack([(0x11, None, APP)], hold=75),
                  stack([(0x21, None, APP)], hold=25)], sample=4)
        out = folded_lines([p], self.rep(400.0, name="m"), FakeSymbols())
        self.assertEqual(out, {"hold;m;fn_10 [file.c:16]": 300.0,
                               "hold;m;fn_20 [file.c:32]": 100.0})

    def test_text(self):
        self.assertEqual(folded_text({"b;x": 2.6, "a;y": 1.2, "c;z": 0.4}),
                         "a;y 1\nb;x 3\n")
        self.assertEqual(folded_text({}), "")


if __name__ == "__main__":
    unittest.main()
