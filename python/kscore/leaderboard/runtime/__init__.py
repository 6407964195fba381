"""How the work runs (leaves: no other leaderboard imports).

pages.py           numpy's small pages while a board is computed
blas.py            one BLAS thread for the pairwise products
progress.py        the progress display (Progress, phase)"""
