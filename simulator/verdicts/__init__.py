"""What a run decides and records: the requirement registry and the set of it each spec revision holds
(``revisions``), the verdict of a scenario from its evidence (``decide``), the run record (``results``), the causes
of what did not pass, the baseline, reviews, merging runs and the falsifiability figure. Pure data in, verdicts
out: the bottom of the harness, importing no other layer.
"""
