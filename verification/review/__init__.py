"""The reviewers' side of verification: the admin queue, its access rule, overview, export, owner notices and teaching.

Only this package touches qa's models; the checks in ``verification/`` are pure.
"""
