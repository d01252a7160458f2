# SPDX-License-Identifier: MIT
"""rcl_prof.wrappers: which functions take the lock as a parameter, from
readelf's text of an object's DWARF (a hand-written excerpt)."""
import unittest

from rcl_prof.wrappers import parse_dies, points_to

# typedef pthread_mutex_t app_mutex_t; int app_mutex_init(app_mutex_t *);
# void make(struct s *); int count(const pthread_mutex_t **);
# a declaration of pthread_spin_init(pthread_spinlock_t *, int).
READELF = """\
 <1><2a>: Abbrev Number: 3 (DW_TAG_union_type)
    <2b>   DW_AT_byte_size   : 40
 <1><40>: Abbrev Number: 6 (DW_TAG_typedef)
    <41>   DW_AT_name        : (indirect string, offset: 0x3b): pthread_mutex_t
    <45>   DW_AT_type        : <0x2a>
 <1><50>: Abbrev Number: 6 (DW_TAG_typedef)
    <51>   DW_AT_name        : app_mutex_t
    <55>   DW_AT_type        : <0x40>
 <1><58>: Abbrev Number: 4 (DW_TAG_pointer_type)
    <59>   DW_AT_byte_size   : 8
    <59>   DW_AT_type        : <0x50>
 <1><60>: Abbrev Number: 12 (DW_TAG_structure_type)
    <61>   DW_AT_name        : s
 <2><66>: Abbrev Number: 9 (DW_TAG_member)
    <67>   DW_AT_name        : lock
    <6a>   DW_AT_type        : <0x40>
 <2><6e>: Abbrev Number: 0
 <1><70>: Abbrev Number: 4 (DW_TAG_pointer_type)
    <71>   DW_AT_type        : <0x60>
 <1><78>: Abbrev Number: 20 (DW_TAG_const_type)
    <79>   DW_AT_type        : <0x40>
 <1><7c>: Abbrev Number: 4 (DW_TAG_pointer_type)
    <7d>   DW_AT_type        : <0x78>
 <1><80>: Abbrev Number: 4 (DW_TAG_pointer_type)
    <81>   DW_AT_type        : <0x7c>
 <1><90>: Abbrev Number: 17 (DW_TAG_subprogram)
    <91>   DW_AT_name        : (indirect string, offset: 0x2c): app_mutex_init
    <95>   DW_AT_low_pc      : 0x1190
 <2><a0>: Abbrev Number: 25 (DW_TAG_formal_parameter)
    <a1>   DW_AT_name        : m
    <a3>   DW_AT_type        : <0x58>
 <2><a7>: Abbrev Number: 0
 <1><b0>: Abbrev Number: 17 (DW_TAG_subprogram)
    <b1>   DW_AT_name        : make
 <2><b8>: Abbrev Number: 25 (DW_TAG_formal_parameter)
    <b9>   DW_AT_name        : p
    <bb>   DW_AT_type        : <0x70>
 <2><bf>: Abbrev Number: 0
 <1><c0>: Abbrev Number: 17 (DW_TAG_subprogram)
    <c1>   DW_AT_name        : count
 <2><c8>: Abbrev Number: 25 (DW_TAG_formal_parameter)
    <c9>   DW_AT_type        : <0x80>
 <2><cf>: Abbrev Number: 0
 <1><d0>: Abbrev Number: 5 (DW_TAG_typedef)
    <d1>   DW_AT_name        : pthread_spinlock_t
    <d5>   DW_AT_type        : <0xe0>
 <1><d8>: Abbrev Number: 4 (DW_TAG_pointer_type)
    <d9>   DW_AT_type        : <0xd0>
 <1><e0>: Abbrev Number: 7 (DW_TAG_volatile_type)
    <e1>   DW_AT_type        : <0x2a>
 <1><f0>: Abbrev Number: 8 (DW_TAG_subprogram)
    <f1>   DW_AT_name        : pthread_spin_init
    <f5>   DW_AT_declaration : 1
 <2><f8>: Abbrev Number: 25 (DW_TAG_formal_parameter)
    <f9>   DW_AT_type        : <0xd8>
 <2><fd>: Abbrev Number: 0
"""


class Wrappers(unittest.TestCase):
    def setUp(self):
        self.dies, self.params = parse_dies(READELF.splitlines())

    def wraps(self, fn, typ):
        return any(points_to(self.dies, t, typ)
                   for sig in self.params.get(fn, []) for t in sig)

    def test_parameters(self):
        self.assertEqual(self.params["app_mutex_init"], [[0x58]])
        self.assertEqual(self.params["make"], [[0x70]])
        self.assertNotIn("s", self.params)  # a structure, not a function

    def test_pointer_to_the_lock_through_typedefs(self):
        self.assertTrue(self.wraps("app_mutex_init", "pthread_mutex_t"))
        self.assertFalse(self.wraps("app_mutex_init", "pthread_rwlock_t"))
        self.assertTrue(self.wraps("pthread_spin_init", "pthread_spinlock_t"))

    def test_not_a_wrapper(self):
        # a structure holding the lock, or a pointer to a pointer to it
        self.assertFalse(self.wraps("make", "pthread_mutex_t"))
        self.assertFalse(self.wraps("count", "pthread_mutex_t"))
        self.assertFalse(self.wraps("missing", "pthread_mutex_t"))


if __name__ == "__main__":
    unittest.main()
