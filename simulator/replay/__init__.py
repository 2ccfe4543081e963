"""Runs kept and played again: the recording of a run, judging a recording again, replaying it against a
subject, reproducing one scenario, and the playback of recorded traffic.
"""
