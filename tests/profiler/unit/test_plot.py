# SPDX-License-Identifier: MIT
"""rcl_prof.plot: the idle-CPU and serialising curve under the timeline,
and gnuplot quoting."""
import unittest

from rcl_prof.dumps import EV_COND, EV_HOLD, EV_WAIT
from rcl_prof.plot import gq, idle_curve


def proc(lives, ncpu=2, serial_max=1):
    return {"ncpu": ncpu, "serial_max": serial_max, "threads_tl": [
        {"start": s, "end": e, "ev": ev} for s, e, ev in lives]}


class IdleCurve(unittest.TestCase):
    def test_wait_serialises(self):
        # two threads on two CPUs; B waits for a lock in the second half
        p = proc([(0, 100, [(EV_HOLD, 1, 50, 100)]),
                  (0, 100, [(EV_WAIT, 1, 50, 100)])])
        idle, serial = idle_curve(p, 0, 100, 2)
        self.assertEqual(idle, [0.0, 50.0])
        self.assertEqual(serial, [0.0, 1.0])

    def test_blocked_elsewhere_does_not_serialise(self):
        p = proc([(0, 100, []), (0, 100, [(EV_COND, 0, 50, 100)])])
        idle, serial = idle_curve(p, 0, 100, 2)
        self.assertEqual(idle, [0.0, 50.0])
        self.assertEqual(serial, [0.0, 0.0])

    def test_partial_bins_and_lives(self):
        # one thread of four CPUs' worth, alive in [25, 75); a wait in
        # [25, 50) leaves nothing runnable
        p = proc([(25, 75, [(EV_WAIT, 1, 25, 50)])], ncpu=4, serial_max=2)
        idle, serial = idle_curve(p, 0, 100, 4)
        self.assertEqual(idle, [100.0, 100.0, 75.0, 100.0])
        self.assertEqual(serial, [0.0, 1.0, 0.0, 0.0])

    def test_window(self):
        # events outside [t0, t_end) are clipped to it
        p = proc([(0, 1000, [(EV_WAIT, 1, 0, 500)]), (0, 1000, [])])
        idle, serial = idle_curve(p, 250, 750, 2)
        self.assertEqual(idle, [50.0, 0.0])
        self.assertEqual(serial, [1.0, 0.0])


class Quote(unittest.TestCase):
    def test_gq(self):
        self.assertEqual(gq('a "b" \\c'), '"a \\"b\\" \\\\c"')


if __name__ == "__main__":
    unittest.main()
