# SPDX-License-Identifier: MIT
"""rcl-refactor's --locks PROFILE.json (rcl_refactor.config.Selection)
reads the profile through librcl_profile."""
import json
import os
import tempfile
import unittest

import librcl_profile
from helpers import lock_entry, profile_doc
from rcl_refactor.config import Selection


class ProfileSelection(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def sel(self, doc):
        path = os.path.join(self.tmp.name, "p.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return Selection(path)

    def test_selects_rcl_recommended(self):
        s = self.sel(profile_doc([
            lock_entry(),
            lock_entry(id="b", name="app.c:30 init", symbol=None,
                       file="/src/app.c", line=30, verdict="may help",
                       rank=2),
            lock_entry(id="c", name="app.c:31 init", symbol=None,
                       file="/src/app.c", line=31, kind="init", rank=3)]))
        self.assertTrue(s.selected("g_heavy"))
        self.assertFalse(s.selected("other"))
        # by init site (file's base name and line)
        self.assertTrue(s.selected("shard.mutex", [("app.c", 31)]))
        self.assertFalse(s.selected("table.mutex", [("app.c", 30)]))
        self.assertEqual(s.comment("g_heavy"),
                         "rank 1, 70% of time in CS, 1% contended, 1000 "
                         "acquisitions, verdict: RCL recommended")

    def test_refuses_what_the_reader_refuses(self):
        e = lock_entry()
        del e["verdict"]
        for doc, msg in ((profile_doc([e]), 'locks[0] ("g_heavy"): no '
                          'verdict'),
                         (profile_doc([lock_entry(verdict="rcl")]),
                          'unknown verdict "rcl"'),
                         (profile_doc(version=2), "schema version 2"),
                         ({"locks": [lock_entry()]}, "no schema version"),
                         ([lock_entry()], "not a profile"),
                         (profile_doc([]), "the profile lists no lock")):
            with self.assertRaises(ValueError) as cm:
                self.sel(doc)
            self.assertIn(msg, str(cm.exception))
            self.assertIn("p.json: ", str(cm.exception))

    def test_one_reader(self):
        # rcl-refactor has no profile parser of its own
        import rcl_refactor.config as config
        self.assertIs(config.librcl_profile, librcl_profile)
        self.assertFalse(hasattr(config, "json"))


if __name__ == "__main__":
    unittest.main()
