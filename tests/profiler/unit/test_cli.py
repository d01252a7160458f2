# SPDX-License-Identifier: MIT
"""rcl_prof.cli: option checks, thresholds, the RCL runtime's variables."""
import contextlib
import io
import os
import tempfile
import unittest
from types import SimpleNamespace

from rcl_prof import cli


def dies(fn, *args):
    """The one-line message and status of a usage error from fn(*args)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            fn(*args)
        except SystemExit as e:
            return err.getvalue(), e.code
    raise AssertionError("%s%r did not exit" % (fn.__name__, args))


class CpuLists(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(cli.parse_cpu_list("3"), [3])
        self.assertEqual(cli.parse_cpu_list("2,3"), [2, 3])
        self.assertEqual(cli.parse_cpu_list("4-7,9"), [4, 5, 6, 7, 9])
        for bad in ("", "a", "3-", "-3", "5-2", "1,,2", "1.5", " 1"):
            self.assertIsNone(cli.parse_cpu_list(bad), bad)

    def test_ranges(self):
        self.assertEqual(cli.cpu_ranges({0, 1, 2, 5}), "0-2,5")
        self.assertEqual(cli.cpu_ranges([7]), "7")
        self.assertEqual(cli.cpu_ranges([3, 1, 4, 0]), "0-1,3-4")
        self.assertEqual(cli.cpu_ranges([]), "")


class RclEnv(unittest.TestCase):
    def test_good(self):
        cli.check_rcl_env({"RCL_DEGRADED": "1", "RCL_STATS": "",
                           "RCL_SERVERS": str(min(os.sched_getaffinity(0)))})

    def test_bad(self):
        for env, msg in (({"RCL_STATS": "yes"}, "RCL_STATS='yes': must be 0 "
                          "or 1"),
                         ({"RCL_SERVERS": "x"}, "RCL_SERVERS='x': not a CPU "
                          "list"),
                         ({"RCL_SERVERS": "99999"}, "CPU 99999 is not "
                          "online")):
            out, code = dies(cli.check_rcl_env, env)
            self.assertEqual(code, 2)
            self.assertIn(msg, out)
            self.assertTrue(out.startswith("rcl-prof: "))
            self.assertEqual(out.count("\n"), 1)


class Options(unittest.TestCase):
    def test_parse(self):
        a = cli.parse_args(["--top", "5", "--", "ls", "-l"], "1.0")
        self.assertEqual((a.top, a.command), (5, ["ls", "-l"]))
        for argv, msg in ((["--top", "-1", "ls"], "--top -1: must be 0"),
                          (["--depth", "9", "ls"], "--depth 9"),
                          (["--lower", "nan", "ls"], "--lower nan"),
                          (["--top", "x", "ls"], "--top: invalid int value"),
                          ([], "no command given"),
                          (["--from", "d", "ls"], "exclusive"),
                          (["--plot", "a.txt", "ls"], "must end in .png")):
            out, code = dies(cli.parse_args, argv)
            self.assertEqual(code, 2, argv)
            self.assertIn(msg, out)

    def thresholds(self, text=None, lower=None, upper=None):
        with tempfile.TemporaryDirectory() as d:
            path = None
            if text is not None:
                path = os.path.join(d, "th")
                with open(path, "w") as f:
                    f.write(text)
            a = SimpleNamespace(thresholds=path, lower=lower, upper=upper)
            return cli.load_thresholds(a), path

    def test_thresholds(self):
        th, _ = self.thresholds()
        self.assertEqual(th, {"lower": 15.0, "upper": 60.0,
                              "source": "default"})
        th, path = self.thresholds('{"lower": 5, "upper": 25}')
        self.assertEqual((th["lower"], th["upper"], th["source"]),
                         (5.0, 25.0, path))
        th, _ = self.thresholds("# calibrated\nlower = 12\nupper=40\n",
                                upper=80)
        self.assertEqual(th, {"lower": 12.0, "upper": 80,
                              "source": "options"})

    def test_bad_thresholds(self):
        for text, msg in (("lower 3\n", ":1: expected lower=PCT"),
                          ('{"lower": "x"}', "lower/upper must be numbers"),
                          ("lower=70\nupper=20\n", "0 <= lower (70) <= "
                           "upper (20)")):
            out, code = dies(self.thresholds, text)
            self.assertEqual(code, 2)
            self.assertIn(msg, out)


if __name__ == "__main__":
    unittest.main()
