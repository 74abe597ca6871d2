"""Pairwise runs: one pairwise judge on two or more finished experiments of one evalset.

Every pair of the experiments is judged on every item they share (rows pair by item id, as
compare does), each pair in both orders. The models live in `models` (re-exported by
`experiments.models`), writes in `services`, reads in `selectors`, the stored statistics in
`summary`, the pages in `views`, the API in `api`; `work` is the pairwise kind of run (what
a chunk judges, what a finished run computes) on the machine every kind shares
(`experiments.runs`: states, leases, dispatch, reaper, cancel and retry). Nothing is
imported here: `experiments.models` loads this package while the app registry is filling.
"""
