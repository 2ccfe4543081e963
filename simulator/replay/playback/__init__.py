"""Playing a recorded subject's side back to the harness: how ``simulator judge`` judges a recording again with the
harness's own, unchanged scenario steps (docs/recording.md).

``scope`` says what a playback covers (importable on its own); ``timeline`` (sans-I/O) orders a recorded scenario's
events and matches the replay's harness events to them; ``fakes`` stands where the roles' connections stand;
``engine`` delivers the subject's side when it falls due; ``install`` swaps the seams and resolves subjects for a
``--playback`` run; ``hooks`` is its pytest plugin part. Import those modules directly: this package imports none
of them.
"""
